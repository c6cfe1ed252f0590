"""The organiser's actions on a running round: replace a seated player, abort a table.

* **Replace** a player of a running table — by a player of the event (registered, on the
  waiting list, or checked in) who has no seat in the round, or by a bot.  The change waits for
  the table's next hand boundary (``games.services.match.BEFORE_HAND``, :func:`apply_pending`):
  a hand is never taken from under its players.  From then on the chair is the replacement's:
  the chair's points for the round, hands before the change included, go to whoever holds it
  at the end (nobody, for a bot), and the replaced player counts as absent for the round, as an
  absentee does (``services.standings``).  Only at score-only events (stake 0): a stake is
  held per wallet for a whole match.
* **Abort** a table: its match stops at once.  Scoring: the hands it finished count as played;
  the hand in play is void (never scored); its players keep the points they had, and are
  placed at the table on them.  An aborted table is never rated.

The organiser or staff may act (:func:`tournaments.round_view.may_run`).  Every action, and
every replacement as it takes effect, is written to the event's log.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from games import services as games
from games.models import Table
from ratings.services import rate_deferred
from tournaments import checkin
from tournaments.models import Registration, Replacement, Round, RoundSeat, RoundTable, Tournament
from tournaments.round_view import may_run

Refused = games.Refused


def _running_table(tournament_id: int, actor: User, table_number: int) -> tuple[Tournament, Round, RoundTable]:
    try:
        t = Tournament.objects.select_for_update().get(pk=tournament_id)
    except Tournament.DoesNotExist:
        raise Refused("no such event") from None
    if not may_run(actor, t):
        raise Refused("only the organiser or staff may do this")
    rnd = t.round_set.order_by("-number").first()
    if rnd is None or t.status != Tournament.RUNNING:
        raise Refused("no round is being played")
    link = rnd.tables.select_related("table").filter(number=table_number).first()
    if link is None:
        raise Refused(f"round {rnd.number} has no table {table_number}")
    if link.table.status != Table.PLAYING:
        raise Refused(f"table {table_number} is not playing")
    return t, rnd, link


def replace(tournament_id: int, actor: User, table_number: int, position: int, replacement: User | None) -> Replacement:
    """Ask for chair ``position`` of table ``table_number`` to go to ``replacement`` (None: a bot)
    at the table's next hand boundary.  A second request for the same chair replaces the first."""
    with transaction.atomic():
        t, rnd, link = _running_table(tournament_id, actor, table_number)
        if t.stake:
            raise Refused("players are replaced during a round only at score-only events: substitute between rounds")
        if not 0 <= position <= 3:
            raise Refused("a chair is 0 to 3")
        seat = link.table.seats.filter(position=position).select_related("user").first()
        if seat is None or seat.user is None or seat.is_bot:
            raise Refused(f"chair {position} of table {table_number} has no player to replace")
        if replacement is not None:
            _check_replacement(t, rnd, replacement)
        Replacement.objects.filter(round_table=link, position=position, applied_at__isnull=True).delete()
        row = Replacement.objects.create(
            round_table=link, position=position, replaced=seat.user, replacement=replacement, requested_by=actor
        )
        by = replacement.get_username() if replacement else "a bot"
        note = f"round {rnd.number}, table {link.number}: {seat.user.get_username()} by {by} from the next hand"
        checkin.log(t, actor, "replace_requested", note)
        return row


def _check_replacement(t: Tournament, rnd: Round, user: User) -> None:
    entered = t.registrations.filter(user=user, status__in=(Registration.REGISTERED, Registration.WAITING))
    here = checkin.present(t, rnd.number)
    if not entered.exists() and user.pk not in here:
        raise Refused(f"{user.get_username()} is not entered in this event")
    if RoundSeat.objects.filter(round=rnd, user=user, round_table__isnull=False).exists():
        raise Refused(f"{user.get_username()} already plays in this round")
    if Replacement.objects.filter(round_table__round=rnd, replacement=user, applied_at__isnull=True).exists():
        raise Refused(f"{user.get_username()} already replaces another player")


def apply_pending(table: Table) -> None:
    """The ``games.services.match.BEFORE_HAND`` hook: put the table's pending replacements into
    effect before its next hand is dealt (the table is locked by the deal).  One query when there
    is nothing to do; a replacement that can no longer be made is logged, not raised — the deal
    goes on."""
    pending = list(
        Replacement.objects.filter(round_table__table_id=table.pk, applied_at__isnull=True).select_related(
            "round_table__round__tournament", "replaced", "replacement", "requested_by"
        )
    )
    for r in pending:
        link, t = r.round_table, r.round_table.round.tournament
        rnd = link.round
        by = r.replacement.get_username() if r.replacement else "a bot"
        note = f"round {rnd.number}, table {link.number}, hand {table.hands_played + 1}: {r.replaced.get_username()}"
        try:
            with transaction.atomic():
                games.chair_changes.replace_player(table, r.position, r.replacement)
                RoundSeat.objects.filter(round_table=link, position=r.position).update(user=r.replacement)
                RoundSeat.objects.create(round=rnd, round_table=None, position=None, user=r.replaced, absent=True)
        except Refused as exc:
            checkin.log(t, r.requested_by, "replace_failed", f"{note}: {exc}")
        else:
            checkin.log(t, r.requested_by, "replaced", f"{note} by {by}")
        r.applied_at = timezone.now()
        r.save(update_fields=["applied_at"])


def abort(tournament_id: int, actor: User, table_number: int) -> Table:
    """Stop table ``table_number`` of the running round now (scoring: see the module's text)."""
    with transaction.atomic():
        t, rnd, link = _running_table(tournament_id, actor, table_number)
        table = games.chair_changes.abort_match(link.table_id)
        Replacement.objects.filter(round_table=link, applied_at__isnull=True).delete()
        hands = table.hands_played
        note = f"round {rnd.number}, table {link.number}: {hands} hands played count, the hand in play is void"
        checkin.log(t, actor, "table_aborted", note)
        # An aborted table plays no deal any more: ratings deferred for its deals may be due.
        transaction.on_commit(rate_deferred, robust=True)
        return table
