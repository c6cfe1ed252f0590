"""A tournament's players' statistics over the event's own tables (its organiser's view and CSV)."""

from __future__ import annotations

import io
from typing import Any

from django.contrib.auth import get_user_model

from core.spreadsheet_cells import SafeWriter
from ratings.stats import PlayerStats, player_stats
from tournaments.models import Registration, RoundSeat, RoundTable, Tournament

CSV_COLUMNS = [
    "player", "hands", "wins", "win_rate", "self_draws", "self_draw_share", "deal_ins", "deal_in_rate",
    "average_score", "best_hand_points", "special_hands",
]  # fmt: skip


def event_players(t: Tournament) -> list[Any]:
    """Who played or is registered: the registered players and everyone seated in a round."""
    ids = set(
        Registration.objects.filter(tournament=t, status=Registration.REGISTERED).values_list("user_id", flat=True)
    )
    ids |= set(RoundSeat.objects.filter(round__tournament=t, user__isnull=False).values_list("user_id", flat=True))
    return list(get_user_model().objects.filter(pk__in=ids).order_by("username"))


def event_stats(t: Tournament) -> list[tuple[Any, PlayerStats]]:
    tables = list(RoundTable.objects.filter(round__tournament=t).values_list("table_id", flat=True))
    return [(user, player_stats(user, t.variant, tables)) for user in event_players(t)]


def event_stats_csv(t: Tournament) -> str:
    buf = io.StringIO()
    out = SafeWriter(buf)
    out.writerow(CSV_COLUMNS)
    for user, s in event_stats(t):
        out.writerow(
            [
                user.get_username(),
                s.hands,
                s.wins,
                f"{s.win_rate:.4f}",
                s.self_draws,
                f"{s.self_draw_share:.4f}",
                s.deal_ins,
                f"{s.deal_in_rate:.4f}",
                f"{s.average_score:.4f}",
                s.best_points if s.best_points is not None else "",
                "; ".join(f"{name} ×{n}" for name, n in sorted(s.special.items())),
            ]
        )
    return buf.getvalue()
