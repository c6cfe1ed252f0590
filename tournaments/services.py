"""Tournament operations: the organiser's and the players' actions, rounds, standings.

Every table of a round is an ordinary table created, seated and started through
``games.services`` (the one write path for tables).  Duplicate mode plugs into it by two
hooks (registered in ``tournaments.apps``): :func:`duplicate_seed` derives each hand's wall
seed from the round's committed seed, so table 1 and table 2 deal the same walls, and
:func:`duplicate_hand_disclosed` (``games.records.disclosure``) keeps a finished hand's seed, hands and
replay back while another table of the round still has that deal to play.

Standings are computed from the finished hands, in points (the rule set's base units,
before any stake): total points, then the tie-breaks in :data:`TIE_BREAKS`.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils.translation import gettext as _

from games import services as games
from games.engine import OptionsError, get_variant, new_seed, seed_commitment
from games.models import Hand, Table
from games.records import disclosure
from tournaments import checkin
from tournaments.models import Registration, Round, RoundSeat, RoundTable, Tournament

Refused = games.Refused

TIE_BREAKS = (
    "total points",
    "sum of table placings over the rounds played (1st = 1 … 4th = 4; lower is better; a bye counts 2.5)",
    "hands won",
    "registration order (earlier first)",
)
BYE_PLACING = 2.5
ABSENT_PLACING = 4  # an absentee replaced or played by a bot: last place at no table
MAX_OFFLINE_GRACE = 900  # seconds: beyond a quarter of an hour a round would stall for one player


# ------------------------------------------------------------------------ organiser
def create_tournament(
    organiser: User,
    name: str,
    variant: str,
    options: dict[str, Any] | None = None,
    *,
    stake: int = 0,
    rounds: int = 2,
    hands_per_round: int = 4,
    turn_seconds: int = 20,
    claim_seconds: int = 8,
    seating: str = Tournament.RANDOM,
    fill: str = Tournament.BOTS,
    duplicate: bool = False,
    max_players: int = 16,
    check_in: bool = False,
    check_in_minutes: int = 10,
    absentees: str = Tournament.WAITING_LIST,
    offline_grace_seconds: int = 120,
) -> Tournament:
    try:
        opts = get_variant(variant).validate_options(options or {})
    except (ValueError, OptionsError) as exc:
        raise Refused(str(exc)) from None
    name = (name or "").strip()
    if not name:
        raise Refused("an event needs a name")
    if not 1 <= rounds <= 20 or not 1 <= hands_per_round <= 64:
        raise Refused("1 to 20 rounds of 1 to 64 hands")
    if not 4 <= max_players <= 1000:
        raise Refused("an event takes 4 to 1000 players")
    if seating not in dict(Tournament.SEATINGS) or fill not in dict(Tournament.FILLS):
        raise Refused("unknown seating or fill method")
    if not 5 <= turn_seconds <= 300 or not 3 <= claim_seconds <= 120:
        raise Refused("time limits: 5–300 s per turn, 3–120 s per claim")
    if not 1 <= check_in_minutes <= 240:
        raise Refused("check-in opens 1 to 240 minutes before a round")
    if absentees not in dict(Tournament.ABSENTEE_RULES):
        raise Refused("unknown rule for absentees")
    if not 0 <= offline_grace_seconds <= MAX_OFFLINE_GRACE:
        raise Refused(f"the offline grace is 0 to {MAX_OFFLINE_GRACE} seconds")
    return Tournament.objects.create(
        offline_grace_seconds=offline_grace_seconds,
        check_in=bool(check_in),
        check_in_minutes=check_in_minutes,
        absentees=absentees,
        name=name[:100],
        organiser=organiser,
        variant=variant,
        options=opts,
        stake=max(0, int(stake)),
        rounds=rounds,
        hands_per_round=hands_per_round,
        turn_seconds=turn_seconds,
        claim_seconds=claim_seconds,
        seating=seating,
        fill=fill,
        duplicate=duplicate,
        max_players=max_players,
    )


def _locked(tournament_id: int) -> Tournament:
    try:
        return Tournament.objects.select_for_update().get(pk=tournament_id)
    except Tournament.DoesNotExist:
        raise Refused("no such event") from None


def _organiser(t: Tournament, user: User) -> None:
    if t.organiser_id != user.pk:
        raise Refused("only the organiser may do this")


def open_registration(tournament_id: int, user: User) -> Tournament:
    with transaction.atomic():
        t = _locked(tournament_id)
        _organiser(t, user)
        if t.status not in (Tournament.DRAFT, Tournament.CLOSED):
            raise Refused("registration can only open before the first round")
        t.status = Tournament.REGISTRATION
        t.save(update_fields=["status"])
        return t


def close_registration(tournament_id: int, user: User) -> Tournament:
    with transaction.atomic():
        t = _locked(tournament_id)
        _organiser(t, user)
        if t.status != Tournament.REGISTRATION:
            raise Refused("registration is not open")
        t.status = Tournament.CLOSED
        t.save(update_fields=["status"])
        return t


def publish(tournament_id: int, user: User, published: bool = True) -> Tournament:
    with transaction.atomic():
        t = _locked(tournament_id)
        _organiser(t, user)
        t.published = published
        t.save(update_fields=["published"])
        return t


# -------------------------------------------------------------------------- players
def register(tournament_id: int, user: User) -> Registration:
    """Register; beyond ``max_players`` the player joins the waiting list."""
    with transaction.atomic():
        t = _locked(tournament_id)
        if t.status != Tournament.REGISTRATION:
            raise Refused("registration is not open")
        reg = t.registrations.filter(user=user).first()
        if reg is not None and reg.status != Registration.WITHDRAWN:
            raise Refused(
                "you are already registered" if reg.status == Registration.REGISTERED else "you are on the waiting list"
            )
        full = t.registrations.filter(status=Registration.REGISTERED).count() >= t.max_players
        status = Registration.WAITING if full else Registration.REGISTERED
        if reg is None:
            return Registration.objects.create(tournament=t, user=user, status=status)
        reg.delete()  # a comeback goes to the back of the queue
        return Registration.objects.create(tournament=t, user=user, status=status)


def withdraw(tournament_id: int, user: User) -> None:
    with transaction.atomic():
        t = _locked(tournament_id)
        reg = t.registrations.filter(user=user).exclude(status=Registration.WITHDRAWN).first()
        if reg is None:
            raise Refused("you are not registered")
        was_registered = reg.status == Registration.REGISTERED
        reg.status = Registration.WITHDRAWN
        reg.save(update_fields=["status"])
        if was_registered and t.status in (Tournament.REGISTRATION, Tournament.CLOSED):
            _promote(t)


def closure_blockers(user: User) -> list[str]:
    """Why ``user`` cannot close their account now (accounts.closure): an entry, or the
    organiser's role, in an event under way (its rounds would seat or need them); a draft,
    never opened, may keep the tombstone as its organiser."""
    unfinished = [Tournament.REGISTRATION, Tournament.CLOSED, Tournament.RUNNING]
    reasons = []
    entered = Registration.objects.filter(user=user, tournament__status__in=unfinished).exclude(
        status=Registration.WITHDRAWN
    )
    for reg in entered.select_related("tournament"):
        reasons.append(
            _("You are entered in the tournament “%(name)s”: withdraw or wait until it ends.")
            % {"name": reg.tournament.name}
        )
    for event in Tournament.objects.filter(organiser=user, status__in=unfinished):
        reasons.append(_("You organise the tournament “%(name)s”, which has not finished.") % {"name": event.name})
    return reasons


def _promote(t: Tournament) -> Registration | None:
    nxt = t.registrations.filter(status=Registration.WAITING).order_by("created_at", "pk").first()
    if nxt is not None:
        nxt.status = Registration.REGISTERED
        nxt.save(update_fields=["status"])
    return nxt


def substitute(tournament_id: int, user: User, absent: User, replacement: User | None = None) -> Registration | None:
    """Before a round: a registered player who did not show is replaced by ``replacement`` or by
    the first of the waiting list (or, with nobody waiting, by a bot or a bye next round)."""
    with transaction.atomic():
        t = _locked(tournament_id)
        _organiser(t, user)
        if t.status == Tournament.FINISHED or (t.status == Tournament.RUNNING and not _round_over(current_round(t))):
            raise Refused("substitutions are made between rounds")
        reg = t.registrations.filter(user=absent, status=Registration.REGISTERED).first()
        if reg is None:
            raise Refused(f"{absent.get_username()} is not registered")
        reg.status = Registration.WITHDRAWN
        reg.save(update_fields=["status"])
        if replacement is None:
            return _promote(t)
        sub, _created = Registration.objects.get_or_create(tournament=t, user=replacement)
        if sub.status == Registration.REGISTERED and sub.pk != reg.pk:
            raise Refused(f"{replacement.get_username()} already plays")
        sub.status = Registration.REGISTERED
        sub.save(update_fields=["status"])
        return sub


# --------------------------------------------------------------------------- rounds
def current_round(t: Tournament) -> Round | None:
    return t.round_set.order_by("-number").first()


def _round_over(rnd: Round | None) -> bool:
    if rnd is None:
        return True
    # An aborted table will not play on: it is over too.
    ended = (Table.FINISHED, Table.ABORTED)
    return not Table.objects.filter(tournament_table__round=rnd).exclude(status__in=ended).exists()


def round_over(rnd: Round) -> bool:
    return _round_over(rnd)


def derive_seed(round_seed: str, number: int) -> str:
    """Hand ``number``'s wall seed of a duplicate round (0: the first-dealer roll)."""
    return hashlib.sha256(f"duplicate:{round_seed}:{number}".encode()).hexdigest()[:32]


def duplicate_seed(table: Table, number: int) -> str | None:
    """The ``games.services.SEED_PROVIDERS`` hook: same walls on every table of a duplicate round."""
    link = RoundTable.objects.filter(table_id=table.pk).select_related("round__tournament").first()
    if link is None or not link.round.tournament.duplicate:
        return None
    return derive_seed(link.round.seed, number)


def duplicate_hand_disclosed(hand: Hand) -> bool | None:
    """The ``games.records.disclosure.DISCLOSURE_CHECKS`` hook: hand *k* of a duplicate round keeps its
    secrets (seed, revealed hands, replay) until every table of the round has finished its own
    hand *k* — they are all dealt from the same seed.  A table whose match is over or aborted
    will not play it any more.  Hands are played in order and ``hands_played`` counts the
    finished ones (``HandStep.finish``), so one query answers for the whole round.  Not a duplicate
    round (or no round at all): True, no objection."""
    pending = Table.objects.filter(
        tournament_table__round__tables__table_id=hand.table_id,
        tournament_table__round__tournament__duplicate=True,
        hands_played__lt=hand.number,
    ).exclude(status__in=(Table.FINISHED, Table.ABORTED))
    return not pending.exists()


def disclosed_duplicate_hands(hands: QuerySet[Hand]) -> QuerySet[Hand]:
    """The ``games.records.disclosure.DISCLOSURE_FILTERS`` hook, :func:`duplicate_hand_disclosed`
    for a whole queryset in one query: leave out a finished hand of a duplicate round while
    another table of its round, still playing, has not finished that hand number."""
    pending = (
        Table.objects.filter(
            tournament_table__round_id=OuterRef("table__tournament_table__round_id"),
            hands_played__lt=OuterRef("number"),
        )
        .exclude(status__in=(Table.FINISHED, Table.ABORTED))
        .values("pk")
    )
    secret = Q(status=Hand.FINISHED, table__tournament_table__round__tournament__duplicate=True) & Exists(pending)
    return hands.exclude(secret)


def _seating_order(t: Tournament, players: list[User], seed: str, number: int) -> list[User]:
    if t.seating == Tournament.BY_STANDINGS and number > 1:
        rank = {row.user_id: i for i, row in enumerate(standings(t).rows)}
        return sorted(players, key=lambda u: (rank.get(u.pk, len(rank)), u.pk))
    order = sorted(players, key=lambda u: u.pk)
    random.Random(seed_commitment("seating:" + seed)).shuffle(order)
    return order


def start_round(tournament_id: int, user: User) -> Round:
    """Seat the next round (tables of four, bots or byes for the rest) and start every table."""
    with transaction.atomic():
        t = _locked(tournament_id)
        _organiser(t, user)
        number = t.round_set.count() + 1
        if t.status == Tournament.REGISTRATION:
            raise Refused("close registration first")
        if t.status not in (Tournament.CLOSED, Tournament.RUNNING) or number > t.rounds:
            raise Refused("every round has been played")
        if not _round_over(current_round(t)):
            raise Refused("the current round is still being played")
        players = [r.user for r in t.registrations.filter(status=Registration.REGISTERED).select_related("user")]
        players, absent, bot_for = _with_absentees(t, number, players, user)
        tables = len(players) // 4 if t.fill == Tournament.BYES else -(-len(players) // 4)
        if tables == 0:
            raise Refused("not enough players for a table")
        seed = new_seed()
        rnd = Round.objects.create(tournament=t, number=number, seed=seed, seed_hash=seed_commitment(seed))
        order = _seating_order(t, players, seed, number)
        seated, byes = order[: tables * 4], order[tables * 4 :]
        for player in absent:
            RoundSeat.objects.create(round=rnd, round_table=None, position=None, user=player, absent=True)
        for i in range(tables):
            group = seated[i * 4 : i * 4 + 4]
            table = games.create_table(
                t.organiser,
                t.variant,
                t.options,
                stake=t.stake,
                hands_total=t.hands_per_round,
                turn_seconds=t.turn_seconds,
                claim_seconds=t.claim_seconds,
                score_only=t.stake == 0,
                offline_grace_seconds=t.offline_grace_seconds,
            )
            link = RoundTable.objects.create(round=rnd, number=i + 1, table=table)
            for position, player in enumerate(group):
                if player.pk in bot_for:  # an absentee's chair, played by a bot
                    RoundSeat.objects.create(round=rnd, round_table=link, position=position, user=None)
                    continue
                try:
                    games.sit(table.pk, player, position)
                except Refused as exc:  # e.g. a wallet below the table's minimum: substitute them
                    raise Refused(f"{player.get_username()}: {exc}") from None
                RoundSeat.objects.create(round=rnd, round_table=link, position=position, user=player)
            for position in range(len(group), 4):
                RoundSeat.objects.create(round=rnd, round_table=link, position=position, user=None)
            present = [p for p in group if p.pk not in bot_for]
            for player in present:
                games.set_ready(table.pk, player)
            if len(present) < 4:
                games.add_bots(table.pk, t.organiser)
        for player in byes:
            RoundSeat.objects.create(round=rnd, round_table=None, position=None, user=player)
        t.status = Tournament.RUNNING
        t.save(update_fields=["status"])
        return rnd


def _with_absentees(
    t: Tournament, number: int, players: list[User], organiser: User
) -> tuple[list[User], list[User], set[int]]:
    """Who is seated in round ``number`` under check-in: the checked-in registered players, then
    by the event's rule for the others (the absentees) — the first checked-in players of the
    waiting list take their places, or they are left out (a bye), or they stay in the seating and
    a bot plays their chair.  Returns the players to seat, the absentees and the users whose chair
    a bot plays.  Without check-in: everyone, nobody absent."""
    if not t.check_in:
        return players, [], set()
    here = checkin.present(t, number)
    absent = [p for p in players if p.pk not in here]
    for player in absent:
        checkin.log(t, organiser, "absent", f"round {number}: {player.get_username()}")
    if t.absentees == Tournament.BOT:
        return players, absent, {p.pk for p in absent}
    seated = [p for p in players if p.pk in here]
    if t.absentees == Tournament.WAITING_LIST:
        waiting = t.registrations.filter(status=Registration.WAITING, user_id__in=here).select_related("user")
        for reg, gone in zip(waiting.order_by("created_at", "pk"), absent, strict=False):
            seated.append(reg.user)
            note = f"round {number}: {reg.user.get_username()} for {gone.get_username()}"
            checkin.log(t, organiser, "stand_in", note)
    return seated, absent, set()


def sync_status(t: Tournament) -> Tournament:
    """A running event whose last round is over is finished."""
    done = t.round_set.count() >= t.rounds and _round_over(current_round(t))
    if done and Tournament.objects.filter(pk=t.pk, status=Tournament.RUNNING).update(status=Tournament.FINISHED):
        t.status = Tournament.FINISHED
    return t


# ------------------------------------------------------------------------ standings
@dataclass
class TableResult:
    round: int
    table: int
    table_id: int
    hands: int
    finished: bool
    chairs: list[dict[str, Any]]  # position, user_id, name, points, wins, placing


@dataclass
class StandingRow:
    rank: int
    user_id: int
    name: str
    points: int = 0
    placings: float = 0.0
    wins: int = 0
    order: int = 0
    rounds: dict[int, int] = field(default_factory=dict)  # round -> points (byes: 0)
    byes: int = 0
    absences: int = 0  # rounds missed (not checked in): 0 points, and a bye or last place


@dataclass
class Standings:
    rows: list[StandingRow]
    results: list[TableResult]


def _placings(points: list[int]) -> list[int]:
    """1 for the best score at the table; ties share the better place."""
    return [1 + sum(1 for q in points if q > p) for p in points]


def table_results(t: Tournament) -> list[TableResult]:
    out = []
    for rnd in t.round_set.prefetch_related("tables__seats__user", "tables__table"):
        for link in rnd.tables.all():
            table = link.table
            points, wins, hands = [0, 0, 0, 0], [0, 0, 0, 0], 0
            finished = Hand.objects.filter(table=table, status=Hand.FINISHED)
            hands = finished.count()
            # A duplicate deal still played at another table counts as finished, nothing more:
            # its points would tell the other tables what it holds (games.records.disclosure).
            for h in disclosure.disclosed_only(finished).order_by("number"):
                result = h.result or {}
                for wind, delta in (result.get("deltas") or {}).items():
                    points[h.position_of("ESWN".index(wind))] += int(delta)
                if result.get("winner"):
                    wins[h.position_of("ESWN".index(result["winner"]))] += 1
            places = _placings(points)
            chairs = []
            for seat in link.seats.all():
                assert seat.position is not None
                name = seat.user.get_username() if seat.user else f"Bot {seat.position + 1}"
                chairs.append(
                    {
                        "position": seat.position,
                        "user_id": seat.user_id,
                        "name": name,
                        "points": points[seat.position],
                        "wins": wins[seat.position],
                        "placing": places[seat.position],
                    }
                )
            out.append(TableResult(rnd.number, link.number, table.pk, hands, table.status == Table.FINISHED, chairs))
    return out


def standings(t: Tournament) -> Standings:
    results = table_results(t)
    order = {r.user_id: i for i, r in enumerate(t.registrations.order_by("created_at", "pk"))}
    rows: dict[int, StandingRow] = {}

    def row(user_id: int, name: str) -> StandingRow:
        if user_id not in rows:
            rows[user_id] = StandingRow(rank=0, user_id=user_id, name=name, order=order.get(user_id, 10**9))
        return rows[user_id]

    for reg in t.registrations.filter(status=Registration.REGISTERED).select_related("user"):
        row(reg.user_id, reg.user.get_username())
    for res in results:
        for chair in res.chairs:
            if chair["user_id"] is None:
                continue
            r = row(chair["user_id"], chair["name"])
            r.points += chair["points"]
            r.wins += chair["wins"]
            r.placings += chair["placing"]
            r.rounds[res.round] = r.rounds.get(res.round, 0) + chair["points"]
    for seat in RoundSeat.objects.filter(round__tournament=t, round_table=None).select_related("user", "round"):
        if seat.user is None:
            continue
        r = row(seat.user.pk, seat.user.get_username())
        r.rounds[seat.round.number] = 0
        if seat.absent:
            r.absences += 1
            if t.absentees != Tournament.BYE:  # an absentee not given a bye places last
                r.placings += ABSENT_PLACING
                continue
        r.byes += 1
        r.placings += BYE_PLACING
    ranked = sorted(rows.values(), key=lambda r: (-r.points, r.placings, -r.wins, r.order))
    previous = None
    for i, r in enumerate(ranked, start=1):
        key = (r.points, r.placings, r.wins)
        r.rank = previous[1] if previous and previous[0] == key else i
        previous = (key, r.rank)
    return Standings(rows=ranked, results=results)


def standings_json(t: Tournament) -> dict[str, Any]:
    s = standings(t)
    return {
        "event": {
            "id": t.pk,
            "name": t.name,
            "variant": t.variant,
            "options": t.options,
            "stake": t.stake,
            "rounds": t.rounds,
            "hands_per_round": t.hands_per_round,
            "duplicate": t.duplicate,
            "status": t.status,
        },
        "tie_breaks": list(TIE_BREAKS),
        "rounds": [
            {
                "number": r.number,
                "seed_hash": r.seed_hash,
                "seed": r.seed if _round_over(r) else None,  # revealed when the round is over
            }
            for r in t.round_set.all()
        ],
        "standings": [
            {
                "rank": r.rank,
                "user_id": r.user_id,
                "name": r.name,
                "points": r.points,
                "placings": r.placings,
                "wins": r.wins,
                "byes": r.byes,
                "absences": r.absences,
                "rounds": {str(k): v for k, v in sorted(r.rounds.items())},
            }
            for r in s.rows
        ],
        "results": [
            {
                "round": res.round,
                "table": res.table,
                "table_id": res.table_id,
                "hands": res.hands,
                "finished": res.finished,
                "chairs": res.chairs,
            }
            for res in s.results
        ],
    }


def standings_csv(t: Tournament) -> str:
    import io

    from core.spreadsheet_cells import SafeWriter

    s = standings(t)
    buf = io.StringIO()
    w = SafeWriter(buf)
    rounds = list(range(1, t.rounds + 1))
    w.writerow(["rank", "player", "points", "placings", "wins", "byes", *[f"round {n}" for n in rounds]])
    for r in s.rows:
        w.writerow([r.rank, r.name, r.points, r.placings, r.wins, r.byes, *[r.rounds.get(n, "") for n in rounds]])
    return buf.getvalue()


def results_csv(t: Tournament) -> str:
    import io

    from core.spreadsheet_cells import SafeWriter

    buf = io.StringIO()
    w = SafeWriter(buf)
    w.writerow(["round", "table", "table_id", "hands", "finished", "chair", "player", "points", "wins", "placing"])
    for res in table_results(t):
        for c in res.chairs:
            w.writerow(
                [
                    res.round,
                    res.table,
                    res.table_id,
                    res.hands,
                    res.finished,
                    c["position"],
                    c["name"],
                    c["points"],
                    c["wins"],
                    c["placing"],
                ]
            )
    return buf.getvalue()


def next_table(t: Tournament, user: User) -> Table | None:
    """The player's table in the current round, while it is being played."""
    rnd = current_round(t)
    if rnd is None:
        return None
    seat = rnd.seats.filter(user=user, round_table__isnull=False).select_related("round_table__table").first()
    if seat is None or seat.round_table is None:
        return None
    table = seat.round_table.table
    return table if table.status not in (Table.FINISHED, Table.ABORTED) else None
