"""The live-table services: lobby operations and the one write path of a running hand.

Every change to a running hand goes through :func:`submit` (a player's command)
or :func:`wake` (a timer asking).  Both lock the hand's row, check ``seq`` and
the deadline, apply the engine, let bots and 托管 seats answer, save the
snapshot with ``seq + 1``, append the events to the log, and — on commit only —
fan the rendered frames out and schedule the next deadline (DESIGN.md §4).
A timer never owns state: a stale or early wake-up changes nothing.
"""

from __future__ import annotations

import json
import logging
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from accounts.models import Wallet
from accounts.services import settle, system_wallet
from games import fanout, timers
from games.engine.bots import GreedyBot
from games.engine.hand import CLAIM, ENDED
from games.engine.hand import Hand as EngineHand
from games.engine.options import OptionsError
from games.engine.state import PASS, Action, IllegalAction, Result
from games.engine.tiles import TileNotationError
from games.engine.variants import get_variant
from games.engine.variants.base import PreHandQuestion
from games.engine.wall import new_seed
from games.engine_cache import ENGINES
from games.models import Hand, HandAction, HandEvent, HandStart, Seat, Table
from games.protocol import parse_action, render_state

log = logging.getLogger("caishen.table")

AUTO_AFTER_TIMEOUTS = 2  # consecutive timeouts before a seat goes to 托管
AUTO_AFTER_DISCONNECTS = 3  # "the third disconnect in a match" (004 text)


class Refused(ValueError):
    """A command the platform refuses; the message is shown to the player."""


def setting(name: str, default: Any) -> Any:
    return getattr(settings, name, default)


# ------------------------------------------------------------------------------ lobby
def create_table(
    owner: User,
    variant: str,
    options: dict[str, Any] | None = None,
    stake: int = 1,
    hands_total: int = 4,
    turn_seconds: int = 20,
    claim_seconds: int = 8,
    is_private: bool = False,
    score_only: bool = False,
) -> Table:
    """``score_only`` (tournaments) allows stake 0: hands are scored but move no wallet units."""
    try:
        rules = get_variant(variant)
        opts = rules.validate_options(options or {})
    except (ValueError, OptionsError) as exc:
        raise Refused(str(exc)) from None
    if stake < 1 and not (score_only and stake == 0):
        raise Refused("the stake must be at least 1")
    if not 1 <= hands_total <= 64:
        raise Refused("a match has 1 to 64 hands")
    if not 5 <= turn_seconds <= 300 or not 3 <= claim_seconds <= 120:
        raise Refused("time limits: 5–300 s per turn, 3–120 s per claim")
    with transaction.atomic():
        table = Table.objects.create(
            variant=variant,
            options=opts,
            stake=stake,
            hands_total=hands_total,
            turn_seconds=turn_seconds,
            claim_seconds=claim_seconds,
            is_private=is_private,
            owner=owner,
        )
        Seat.objects.bulk_create([Seat(table=table, position=p) for p in range(4)])
    return table


def min_balance(table: Table) -> int:
    """What a player must hold to sit: a multiple of the stake (CAISHEN_SIT_MULTIPLE, default 20)."""
    return int(table.stake) * int(setting("CAISHEN_SIT_MULTIPLE", 20))


def _locked_table(table_id: int) -> Table:
    try:
        return Table.objects.select_for_update().get(pk=table_id)
    except Table.DoesNotExist:
        raise Refused("no such table") from None


def sit(table_id: int, user: User, position: int | None = None) -> Seat:
    with transaction.atomic():
        table = _locked_table(table_id)
        if table.status != Table.WAITING:
            raise Refused("the match has started; you can watch")
        seats = list(table.seats.select_for_update())
        if any(s.user_id == user.pk for s in seats):
            raise Refused("you already sit at this table")
        wallet = Wallet.objects.get(user=user)
        if wallet.balance < min_balance(table):
            raise Refused(f"you need at least {min_balance(table)} to sit at this table (you have {wallet.balance})")
        free = [s for s in seats if not s.occupied]
        if position is not None:
            free = [s for s in free if s.position == position]
        if not free:
            raise Refused("that seat is taken" if position is not None else "the table is full")
        seat = free[0]
        seat.user, seat.is_bot, seat.ready = user, False, False
        seat.save()
        _table_changed(table)
        return seat


def stand(table_id: int, user: User) -> None:
    with transaction.atomic():
        table = _locked_table(table_id)
        seat = table.seats.filter(user=user).first()
        if seat is None:
            raise Refused("you do not sit at this table")
        if table.status == Table.PLAYING:
            leave_match(table, seat)
            return
        seat.user, seat.ready = None, False
        seat.save()
        _cancel_countdown(table)
        _table_changed(table)


def add_bots(table_id: int, user: User) -> int:
    """The owner fills every empty seat with a ready bot; returns how many."""
    with transaction.atomic():
        table = _locked_table(table_id)
        if table.owner_id != user.pk:
            raise Refused("only the table's owner may add bots")
        if table.status != Table.WAITING:
            raise Refused("the match has started")
        empty = [s for s in table.seats.select_for_update() if not s.occupied]
        for s in empty:
            s.is_bot, s.ready = True, True
            s.save()
        _after_ready_change(table)
        return len(empty)


def set_ready(table_id: int, user: User, ready: bool = True) -> None:
    """Confirm the stake (Ready).  Four ready seats start the match."""
    with transaction.atomic():
        table = _locked_table(table_id)
        if table.status != Table.WAITING:
            raise Refused("the match has started")
        seat = table.seats.filter(user=user).first()
        if seat is None:
            raise Refused("you do not sit at this table")
        if ready and Wallet.objects.get(user=user).balance < min_balance(table):
            raise Refused(f"you need at least {min_balance(table)} to play at this table")
        seat.ready = ready
        seat.save(update_fields=["ready"])
        _after_ready_change(table)


def _after_ready_change(table: Table) -> None:
    seats = list(table.seats.all())
    ready = [s for s in seats if s.occupied and s.ready]
    if len(ready) == 4:
        table.ready_deadline = None
        table.save(update_fields=["ready_deadline"])
        start_match(table)
        return
    unready = [s for s in seats if s.user_id is not None and not s.ready]
    if len(ready) == 3 and len(unready) == 1 and table.ready_deadline is None:
        # The fourth gets a countdown: ready by then or be unseated.
        table.ready_deadline = timezone.now() + timedelta(seconds=setting("CAISHEN_READY_SECONDS", 30))
        table.save(update_fields=["ready_deadline"])
        timers.schedule_on_commit("table", table.pk, _token(table.ready_deadline), table.ready_deadline)
    elif len(ready) < 3:
        _cancel_countdown(table)
    _table_changed(table)


def _cancel_countdown(table: Table) -> None:
    if table.ready_deadline is not None:
        table.ready_deadline = None
        table.save(update_fields=["ready_deadline"])


def _token(at: datetime) -> int:
    return int(at.timestamp() * 1000)


def _table_changed(table: Table) -> None:
    transaction.on_commit(lambda: fanout.table_changed(table.pk), robust=True)


# ------------------------------------------------------------------------------ match
# Who supplies a table's walls instead of a fresh secret seed: (table, hand number) -> seed or
# None; number 0 is the first-dealer roll.  Tournaments' duplicate mode registers one
# (tournaments/apps.py) so every table of a round plays the same walls.
SEED_PROVIDERS: list[Any] = []


def provided_seed(table: Table, number: int) -> str | None:
    for provider in SEED_PROVIDERS:
        if (seed := provider(table, number)) is not None:
            return str(seed)
    return None


def start_match(table: Table, first_hand: EngineHand | None = None) -> Hand | None:
    """Begin the match; ``first_hand`` lets tests and tournaments supply a prepared (rigged) hand."""
    table.status = Table.PLAYING
    # Chair 0 is East; the rule set names the first dealer (东北 rolls a die for it).
    roll = provided_seed(table, 0) or new_seed()
    table.dealer_position = get_variant(table.variant).first_dealer(roll, table.options) % 4
    table.hands_played = 0
    table.context = {}
    table.save()
    Seat.objects.filter(table=table).update(timeouts=0, disconnects=0, auto_play=False)
    if first_hand is not None:
        return start_hand(table, first_hand)
    return begin_hand(table)


def begin_hand(table: Table) -> Hand | None:
    """Start the next hand, first asking the rule set's pre-hand questions (买底/顶底, 飘).

    Returns the new hand, or None while people still have questions to answer.
    """
    rules = get_variant(table.variant)
    questions = rules.pre_hand_questions(table.options, table.context)
    if not questions:
        return start_hand(table)
    table.pre_hand = {"questions": [q.to_json() for q in questions], "index": 0, "answers": {}}
    return _advance_pre_hand(table)


def _current_question(table: Table) -> PreHandQuestion | None:
    ph = table.pre_hand
    if not ph:
        return None
    return PreHandQuestion.from_json(ph["questions"][ph["index"]])


def _advance_pre_hand(table: Table, now: datetime | None = None) -> Hand | None:
    """Bots and 托管 seats answer at once; complete questions fold into the context; then deal."""
    rules = get_variant(table.variant)
    seats = list(table.seats.all())
    now = now or timezone.now()
    while (question := _current_question(table)) is not None:
        ph = table.pre_hand
        assert ph is not None
        chairs = {wind: (wind + table.dealer_position) % 4 for wind in question.seats}
        for chair in chairs.values():
            s = seats[chair]
            if str(chair) not in ph["answers"] and (s.is_bot or s.auto_play or s.left):
                ph["answers"][str(chair)] = question.default
        if any(str(c) not in ph["answers"] for c in chairs.values()):
            table.ready_deadline = now + timedelta(seconds=table.turn_seconds)
            table.save(update_fields=["pre_hand", "ready_deadline", "context"])
            timers.schedule_on_commit("table", table.pk, _token(table.ready_deadline), table.ready_deadline)
            _table_changed(table)
            return None
        answers = {wind: ph["answers"][str(chair)] for wind, chair in chairs.items()}
        table.context = rules.apply_pre_hand_answers(table.context, question, answers)
        ph["index"] += 1
        ph["answers"] = {}
        if ph["index"] >= len(ph["questions"]):
            table.pre_hand = None
    table.ready_deadline = None
    table.save(update_fields=["pre_hand", "ready_deadline", "context"])
    return start_hand(table)


def choose(table_id: int, user: User, key: Any, value: Any) -> None:
    """A player's answer to the open pre-hand question."""
    with transaction.atomic():
        table = _locked_table(table_id)
        question = _current_question(table)
        if table.status != Table.PLAYING or question is None:
            raise Refused("there is no question to answer now")
        if key != question.key:
            raise Refused(f"the question now is {question.label} ({question.key})")
        seat = table.seats.filter(user=user).first()
        if seat is None:
            raise Refused("you do not sit at this table")
        wind = (seat.position - table.dealer_position) % 4
        if wind not in question.seats:
            raise Refused(f"{question.label} is not yours to choose")
        assert table.pre_hand is not None
        if str(seat.position) in table.pre_hand["answers"]:
            raise Refused("you have already answered")
        if not any(value == c and type(value) is type(c) for c in question.choices):
            allowed = ", ".join(json.dumps(c) for c in question.choices)
            raise Refused(f"{question.label}: choose one of {allowed}")
        table.pre_hand["answers"][str(seat.position)] = value
        if seat.auto_play or seat.timeouts:
            seat.auto_play, seat.timeouts = False, 0
            seat.save(update_fields=["auto_play", "timeouts"])
        _advance_pre_hand(table)


def start_hand(table: Table, engine: EngineHand | None = None) -> Hand:
    """Deal (or take the prepared ``engine``) and let bots act until a person must decide."""
    rules = get_variant(table.variant)
    if rules.escape_penalty_bases:
        # A leaver who paid the escape penalty is gone: a house bot takes the chair.
        table.seats.filter(left=True, is_bot=False).update(is_bot=True, auto_play=False)
    seed = provided_seed(table, table.hands_played + 1) or new_seed()
    if engine is None:
        engine = rules.new_hand(table.options, table.context, seed=seed)
    else:
        seed = engine.seed or ""
    engine.open_empty_windows = True  # claim protection: see _Step.advance
    row = Hand.objects.create(
        table=table,
        number=table.hands_played + 1,
        dealer_position=table.dealer_position,
        seed=seed,
        seed_hash=engine.seed_hash or "",
        snapshot=engine.to_json(),
    )
    HandStart.objects.create(hand=row, snapshot=row.snapshot)  # a replay's starting point
    step = _Step(row, engine, _step_seats(table, lock=False))  # (as before: the deal locks no seat)
    step.advance()
    step.save()
    _table_changed(table)
    return row


# What a step may change on the hand's row (the rest is fixed at the deal, or, like ``prepaid``,
# written by its own service): saving only these keeps the hot path's UPDATE small.
STEP_FIELDS = [
    "seq",
    "snapshot",
    "deadline_at",
    "window_opened_at",
    "status",
    "result",
    "deltas",
    "settled",
    "finished_at",
]


@dataclass
class _Step:
    """One command's work on a locked hand: engine changes collected, saved once."""

    row: Hand
    engine: EngineHand
    seats: list[Seat]
    events: list[Any] = field(default_factory=list)
    now: datetime = field(default_factory=timezone.now)
    # (action, number of events it produced): the HandAction log that replays need.
    actions: list[tuple[Action, int]] = field(default_factory=list)

    def seat_at(self, engine_seat: int) -> Seat:
        return self.seats[self.row.position_of(engine_seat)]

    def automatic(self, engine_seat: int) -> bool:
        s = self.seat_at(engine_seat)
        return s.is_bot or s.auto_play or s.left

    def pending(self) -> list[int]:
        """Engine seats that owe a decision now: whoever has a legal action (claim windows,
        the player whose turn it is, and any question a rule set puts, such as 漳州's 抢金)."""
        e = self.engine
        if e.phase == ENDED:
            return []
        return [s for s in range(4) if e.legal_actions(s)]

    def apply(self, action: Action) -> None:
        events = self.engine.apply(action)
        self.events.extend(events)
        self.actions.append((action, len(events)))
        if self.engine.phase == CLAIM and any(e.kind in ("discard", "add_kong") for e in events):
            self.row.window_opened_at = self.now

    def has_claim(self, engine_seat: int) -> bool:
        """Does this seat hold a real choice (more than a pass): a claim in the open window,
        or an option in a rule set's prompt (漳州 抢金, 抢暗杠)?"""
        prompt = self.engine.variant.prompt(self.engine)
        if prompt is not None and prompt.get(engine_seat):
            return True
        window = self.engine.window
        return window is not None and bool(window.options.get(engine_seat))

    def bot_action(self, engine_seat: int) -> Action:
        rng = random.Random(f"{self.row.seed}:{self.engine.seq}:{engine_seat}")
        return GreedyBot().choose(self.engine, engine_seat, rng)

    def advance(self) -> None:
        """Let the rules, bots and 托管 seats act until a person must decide (or a pause is due)."""
        bot_delay = float(setting("CAISHEN_BOT_DELAY", 0.8))
        for _ in range(1000):
            pending = self.pending()
            if not pending:
                break
            forced = [a for s in pending if (a := self.engine.variant.forced_action(self.engine, s)) is not None]
            if forced:
                self.apply(forced[0])
                continue
            people = [s for s in pending if not self.automatic(s)]
            if people:
                # Bots answer a claim window at once (their answers are private); people get the clock.
                for s in pending:
                    if self.automatic(s):
                        self.apply(self.bot_action(s))
                if self.pending() != people:
                    continue
                if self.engine.phase != CLAIM:
                    self.row.deadline_at = self.now + timedelta(seconds=self.row.table.turn_seconds)
                    return
                if any(self.has_claim(s) for s in people):
                    self.row.deadline_at = self.now + timedelta(seconds=self.row.table.claim_seconds)
                    return
                # Claim protection: every discard opens a window for every seat, and seats with
                # nothing to claim pass after one uniform pause, so the pace of play does not
                # tell who holds a claim.
                until = (self.row.window_opened_at or self.now) + timedelta(
                    seconds=float(setting("CAISHEN_DISCARD_PAUSE", 0.6))
                )
                if self.now < until:
                    self.row.deadline_at = until
                    return
                for s in people:
                    self.apply(Action(s, PASS))
                continue
            if bot_delay > 0:
                self.row.deadline_at = self.now + timedelta(seconds=bot_delay)
                return
            self.apply(self.bot_action(pending[0]))
        if self.engine.phase == ENDED:
            self.finish()

    def finish(self) -> None:
        """Settle the ended hand and prepare the match's next one."""
        row, table = self.row, self.row.table
        result = self.engine.result
        assert result is not None
        row.status = Hand.FINISHED
        row.finished_at = self.now
        row.result = result.to_json()
        if setting("CAISHEN_SETTLEMENT", "inline") == "celery":
            hand_id = row.pk
            transaction.on_commit(lambda: _queue_settlement(hand_id), robust=True)
        else:
            row.deltas = settle_hand(row, result, self.seats)
            row.settled = True
        rules = get_variant(table.variant)
        table.dealer_position = (table.dealer_position + rules.next_dealer_offset(result)) % 4
        table.context = rules.next_context(result, table.context)
        table.hands_played += 1
        if table.hands_played >= table.hands_total:
            table.status = Table.FINISHED
            row.deadline_at = None
        else:
            row.deadline_at = self.now + timedelta(seconds=setting("CAISHEN_BETWEEN_HANDS_SECONDS", 6))
        table.save()

    def save(self) -> None:
        row = self.row
        row.seq += 1
        row.snapshot = self.engine.to_json()
        if row.status == Hand.PLAYING and not self.pending():
            row.deadline_at = None
        row.save(update_fields=STEP_FIELDS)
        HandEvent.objects.bulk_create(
            [
                HandEvent(hand=row, seq=row.seq, index=i, kind=e.kind, event=e.to_json())
                for i, e in enumerate(self.events)
            ]
        )
        HandAction.objects.bulk_create(
            [
                HandAction(hand=row, seq=row.seq, index=i, action=a.to_json(), event_count=n)
                for i, (a, n) in enumerate(self.actions)
            ]
        )
        frames = fanout.hand_frames(row, self.engine, self.seats, self.events)
        # robust: the move is committed; a failing broker or layer afterwards must not skip the
        # other callbacks (clients resync on the gap; the sweepers catch lost timers and settlements).
        transaction.on_commit(lambda: fanout.send_hand_frames(row.table_id, frames), robust=True)
        engine, seq = self.engine, row.seq
        transaction.on_commit(lambda: ENGINES.put(row.pk, seq, row.seed, engine), robust=True)
        if row.deadline_at is not None:
            timers.schedule_on_commit("hand", row.pk, row.seq, row.deadline_at)
        log.info(
            "hand step",
            extra={"table": row.table_id, "hand": row.pk, "seq": row.seq, "events": len(self.events)},
        )


def settle_hand(row: Hand, result: Result, seats: list[Seat]) -> dict[str, int]:
    """Book the hand into wallets: engine points × stake; bots play for the house (system wallet).

    Returns the units each chair actually moved (after the cap for losses larger than a balance).
    """
    stake = int(row.table.stake)
    by_wallet: dict[int, int] = {}
    chair_wallet: dict[int, int] = {}
    house = system_wallet()
    prepaid = row.prepaid or {}
    for engine_seat, points in enumerate(result.deltas):
        chair = row.position_of(engine_seat)
        points -= int(prepaid.get(str(chair), 0))  # 杠分 a leaver already settled
        seat = seats[chair]
        wallet_id = house.pk if seat.is_bot or seat.user_id is None else Wallet.objects.get(user_id=seat.user_id).pk
        chair_wallet[chair] = wallet_id
        by_wallet[wallet_id] = by_wallet.get(wallet_id, 0) + points * stake
    entries = settle(f"hand:{row.pk}", by_wallet, note=f"table {row.table_id} hand {row.number}")
    moved = {e.wallet_id: e.amount for e in entries}
    out: dict[str, int] = {}
    for chair, wallet_id in chair_wallet.items():
        if wallet_id == house.pk:
            out[str(chair)] = (result.deltas[row.engine_seat(chair)] - int(prepaid.get(str(chair), 0))) * stake
        else:
            out[str(chair)] = moved.get(wallet_id, 0)
    # The match's running scores, shown in every frame (the caller saves the table row, which
    # every path here holds locked: the step's or the settlement's own lock on the hand).
    table = row.table
    table.scores = {c: int((table.scores or {}).get(c, 0)) + int(out.get(c, 0)) for c in ("0", "1", "2", "3")}
    return out


def _queue_settlement(hand_id: int) -> None:
    from games.tasks import settle_task

    settle_task.delay(hand_id)


def settle_finished_hand(hand_id: int) -> bool:
    """Settle a finished hand that is not settled yet (the scaled mode's Celery task).  Idempotent."""
    with transaction.atomic():
        row = _locked_hand(hand_id)
        if row.status != Hand.FINISHED or row.settled or row.result is None:
            return False
        row.deltas = settle_hand(row, Result.from_json(row.result), list(row.table.seats.all()))
        row.settled = True
        row.save(update_fields=["deltas", "settled"])
        row.table.save(update_fields=["scores"])
        _table_changed(row.table)
        return True


def unsettled_hands(older_than: float = 10.0) -> list[int]:
    """Finished hands still unsettled a while after they ended: their settlement task was lost
    (a broker restart, a worker killed before acking).  Settling is idempotent, so the sweeper
    simply settles them again."""
    cutoff = timezone.now() - timedelta(seconds=older_than)
    return list(
        Hand.objects.filter(status=Hand.FINISHED, settled=False, finished_at__lte=cutoff).values_list("pk", flat=True)
    )


def record_sweep() -> None:
    """Remember when the deadline sweeper last ran (health checks read it)."""
    cache.set("caishen:last_sweep", timezone.now().isoformat(), timeout=None)


def last_sweep() -> str | None:
    value = cache.get("caishen:last_sweep")
    return str(value) if value else None


# ------------------------------------------------------------------------- write path
def _locked_hand(hand_id: int) -> Hand:
    """The hand's row, locked; the snapshot column is read only when the engine cache misses."""
    try:
        return Hand.objects.select_for_update().select_related("table").defer("snapshot").get(pk=hand_id)
    except Hand.DoesNotExist:
        raise Refused("no such hand") from None


def _step_seats(table: Table, lock: bool = True) -> list[Seat]:
    """The table's four seats, locked unless ``lock`` is false (the frames' names come from
    games.names, not from a join here: this query runs on every step)."""
    seats = table.seats.all()
    return list(seats.select_for_update() if lock else seats)


def _engine(row: Hand) -> EngineHand:
    """The engine at ``row.seq``: from this process's cache when it holds that very seq, else
    decoded from the row.  The cache entry is taken out here and put back only after a commit
    (``_Step.save``), so a step that fails part-way cannot leave a half-applied engine behind,
    and a step applied by another process (a new seq) is never mistaken for this one."""
    engine = ENGINES.take(row.pk, row.seq, row.seed)
    if engine is None:
        snapshot = row.snapshot if "snapshot" in row.__dict__ else _snapshot_of(row.pk)
        engine = EngineHand.from_json(snapshot)
        engine.open_empty_windows = True  # claim protection: see _Step.advance
    return engine


def _decoded(row: Hand) -> EngineHand:
    """The engine for reading only (snapshots, the escape rule): decoded, the cache untouched."""
    engine = EngineHand.from_json(row.snapshot)
    engine.open_empty_windows = True
    return engine


def _snapshot_of(hand_id: int) -> dict[str, Any]:
    return dict(Hand.objects.filter(pk=hand_id).values_list("snapshot", flat=True).get())


def submit(hand_id: int, user: User, command: Any, seq: Any) -> int:
    """A player's command on the hand at ``seq``.  Returns the new seq; raises Refused."""
    with transaction.atomic():
        row = _locked_hand(hand_id)
        if not isinstance(seq, int) or isinstance(seq, bool):
            raise Refused("a command must carry the seq it answers")
        if seq != row.seq:
            raise Refused(f"stale command: the table is at seq {row.seq}, not {seq}")
        if row.status != Hand.PLAYING:
            raise Refused("the hand is over")
        seats = _step_seats(row.table)
        seat = next((s for s in seats if s.user_id == user.pk), None)
        if seat is None:
            raise Refused("you do not sit at this table")
        engine = _engine(row)
        engine_seat = row.engine_seat(seat.position)
        try:
            action = parse_action(command, engine_seat)
        except (ValueError, TileNotationError) as exc:
            raise Refused(f"malformed command: {exc}") from None
        step = _Step(row, engine, seats)
        try:
            step.apply(action)
        except IllegalAction as exc:
            raise Refused(str(exc)) from None
        if seat.auto_play or seat.timeouts:
            seat.auto_play = False  # 托管 ends when the player acts again
            seat.timeouts = 0
            seat.save(update_fields=["auto_play", "timeouts"])
        step.advance()
        step.save()
        log.info(
            "command",
            extra={"table": row.table_id, "hand": row.pk, "seat": seat.position, "seq": row.seq, "do": action.kind},
        )
        return row.seq


def wake(kind: str, obj_id: int, token: int) -> bool:
    """A timer asks.  Returns whether anything changed (stale or early wake-ups change nothing)."""
    if kind == "table":
        return _wake_table(obj_id, token)
    with transaction.atomic():
        try:
            row = _locked_hand(obj_id)
        except Refused:
            return False
        now = timezone.now()
        if row.seq != token or row.deadline_at is None or now < row.deadline_at:
            return False
        table = row.table
        if row.status == Hand.FINISHED:
            row.deadline_at = None
            row.save(update_fields=["deadline_at"])
            table = Table.objects.select_for_update().get(pk=table.pk)
            if (
                table.status == Table.PLAYING
                and table.pre_hand is None
                and not table.hands.filter(number=row.number + 1).exists()
            ):
                begin_hand(table)
            return True
        seats = _step_seats(table)
        step = _Step(row, _engine(row), seats, now=now)
        for engine_seat in step.pending():
            if step.engine.phase == ENDED:
                break
            if step.automatic(engine_seat):
                step.apply(step.bot_action(engine_seat))
                continue
            default = step.engine.timeout_action(engine_seat)
            if default is None:
                continue
            counts_as_timeout = step.engine.phase != CLAIM or step.has_claim(engine_seat)
            step.apply(default)
            if not counts_as_timeout:
                continue  # the uniform pass of a seat with nothing to claim
            seat = step.seat_at(engine_seat)
            seat.timeouts += 1
            if seat.timeouts >= AUTO_AFTER_TIMEOUTS:
                seat.auto_play = True
            seat.save(update_fields=["timeouts", "auto_play"])
        step.advance()
        step.save()
        return True


def _wake_table(table_id: int, token: int) -> bool:
    with transaction.atomic():
        table = Table.objects.select_for_update().filter(pk=table_id).first()
        if table is None or table.ready_deadline is None:
            return False
        now = timezone.now()
        if _token(table.ready_deadline) != token or now < table.ready_deadline:
            return False
        question = _current_question(table)
        if table.status == Table.PLAYING and question is not None and table.pre_hand is not None:
            # Whoever did not answer in time takes the default answer.
            for wind in question.seats:
                table.pre_hand["answers"].setdefault(str((wind + table.dealer_position) % 4), question.default)
            _advance_pre_hand(table, now)
            return True
        if table.status != Table.WAITING:
            return False
        for seat in table.seats.select_for_update().filter(user__isnull=False, ready=False):
            seat.user = None
            seat.save(update_fields=["user"])
        table.ready_deadline = None
        table.save(update_fields=["ready_deadline"])
        _table_changed(table)
        return True


def due_wakeups(now: datetime | None = None) -> list[tuple[str, int, int]]:
    """Every deadline that has passed: the sweeper's safety net for lost timers."""
    now = now or timezone.now()
    hands = Hand.objects.filter(deadline_at__lte=now).values_list("pk", "seq")
    waiting = Table.objects.filter(ready_deadline__lte=now).values_list("pk", "ready_deadline")
    tables = [(pk, at) for pk, at in waiting if at is not None]
    return [("hand", pk, seq) for pk, seq in hands] + [("table", pk, _token(at)) for pk, at in tables]


# --------------------------------------------------------------------- presence, leaving
def set_connected(table_id: int, user: User, connected: bool) -> None:
    """A socket of a seated player opened or closed.

    A player may have several sockets (tabs, a reconnect racing the old socket's close): the
    seat is connected while any is open, and only the last one closing counts as a disconnect.
    """
    with transaction.atomic():
        seat = Seat.objects.select_for_update().filter(table_id=table_id, user=user).select_related("table").first()
        if seat is None:
            return
        seat.connections = seat.connections + 1 if connected else max(0, seat.connections - 1)
        was_connected = seat.connected
        seat.connected = seat.connections > 0
        if was_connected and not seat.connected and seat.table.status == Table.PLAYING:
            seat.disconnects += 1
            if seat.disconnects >= AUTO_AFTER_DISCONNECTS:
                seat.auto_play = True
        seat.save(update_fields=["connections", "connected", "disconnects", "auto_play"])
        if seat.connected != was_connected:
            _table_changed(seat.table)


def leave_match(table: Table, seat: Seat) -> None:
    """Walking out of a running match (逃跑), under the rule set's escape rule.

    Everywhere the seat is played by 托管 for the rest of the current hand.  Where the rule
    set has an escape penalty (东北: "先结算杠分，然后再按底注的100倍扣逃跑玩家的分数"), the
    leaver's 杠分 so far are settled at once, then the penalty goes to the system wallet, and
    from the next hand on a house bot takes the chair; elsewhere 托管 plays on to the end of
    the match, for the leaver's wallet.
    """
    seat.left = True
    seat.auto_play = True
    seat.save(update_fields=["left", "auto_play"])
    rules = get_variant(table.variant)
    if rules.escape_penalty_bases and seat.user_id is not None:
        _escape_penalty(table, seat, rules.escape_penalty_bases)
    _table_changed(table)


def _escape_penalty(table: Table, seat: Seat, bases: int) -> None:
    assert seat.user_id is not None
    wallet = Wallet.objects.get(user_id=seat.user_id)
    row = current_hand(table)
    if row is not None and row.status == Hand.PLAYING:
        engine = _decoded(row)
        points = [0, 0, 0, 0]
        for item in get_variant(table.variant).escape_settlement(engine):
            for wind, delta in item.payments.items():
                points["ESWN".index(wind)] += delta
        if any(points):
            # Settled now; the hand's final settlement subtracts what was prepaid here.
            seats = list(table.seats.all())
            prepaid = {str(row.position_of(s)): points[s] for s in range(4)}
            movements: dict[int, int] = {}
            for engine_seat, p in enumerate(points):
                wid = _wallet_id(seats[row.position_of(engine_seat)])
                movements[wid] = movements.get(wid, 0) + p * int(table.stake)
            settle(f"escape:{row.pk}:{seat.position}", movements, note=f"杠分 settled on leaving, hand {row.number}")
            row.prepaid = {k: row.prepaid.get(k, 0) + v for k, v in prepaid.items()} if row.prepaid else prepaid
            row.save(update_fields=["prepaid"])
    wallet.refresh_from_db()
    penalty = min(wallet.balance, bases * int(table.stake))
    if penalty > 0:
        house = system_wallet()
        settle(
            f"escape-penalty:{table.pk}:{seat.position}:{table.hands_played}",
            {wallet.pk: -penalty, house.pk: penalty},
            note=f"逃跑: {bases} × 底注",
        )


def _wallet_id(seat: Seat) -> int:
    if seat.is_bot or seat.user_id is None:
        return system_wallet().pk
    return Wallet.objects.get(user_id=seat.user_id).pk


# ------------------------------------------------------------------------------ reads
def current_hand(table: Table) -> Hand | None:
    return table.hands.order_by("-number").first()


def state_for(table: Table, user: User | None) -> dict[str, Any]:
    """The full snapshot a client gets on connect or resync."""
    seats = list(table.seats.select_related("user__profile"))
    position = next((s.position for s in seats if user is not None and s.user_id == user.pk), None)
    row = current_hand(table)
    engine = _decoded(row) if row is not None else None
    return render_state(table, seats, row, engine, position)
