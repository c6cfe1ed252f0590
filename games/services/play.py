"""The one write path of a running hand (spec/DESIGN.md §4).

Every change to a running hand goes through :func:`submit` (a player's command) or :func:`wake`
(a timer asking).  Both lock the hand's row, check ``seq`` and the deadline, apply the engine, let
bots and 托管 seats answer, append the step's actions to the hand's record with ``seq + 1`` (the
whole snapshot only every ``CAISHEN_SNAPSHOT_EVERY`` steps and at the end: games/records/rebuild.py),
and — on commit only — fan the rendered frames out and schedule the next deadline.  A timer
never owns state: a stale or early wake-up changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from games.engine import (
    CLAIM,
    PASS,
    Action,
    Bot,
    GreedyBot,
    IllegalAction,
    StrongBot,
    TileNotationError,
    Turn,
    advance,
    decision_rng,
    get_variant,
    idle_passes,
    refuse,
    turn,
)
from games.engine import Hand as EngineHand
from games.models import Hand, HandAction, PlayerTableSettings, Seat, Table
from games.records import rebuild
from games.runtime import fanout, timers
from games.runtime.after_commit import on_commit_each
from games.runtime.prepared import PreparedInsert, PreparedSelect, PreparedUpdate
from games.runtime.process import runtime
from games.services import grace, locks, presets, settlement, step_hold
from games.services.common import (
    AUTO_AFTER_TIMEOUTS,
    Refused,
    log,
)
from games.wire.protocol import parse_action, render_state

# What a step may change on the hand's row (the rest is fixed at the deal, or, like ``prepaid``,
# written by its own service): saving only these keeps the hot path's UPDATE small.  The snapshot
# is not among them: most steps leave it as it is (SNAPSHOT_FIELDS, HandStep.save).
STEP_FIELDS = [
    "seq",
    "deadline_at",
    "window_opened_at",
    "window_answers",
    "status",
    "result",
    "deltas",
    "settled",
    "finished_at",
]

SNAPSHOT_FIELDS = ["snapshot", "snapshot_seq"]

# The step's own queries, compiled once (games.runtime.prepared: compiling them on every step cost more
# than running them); its locks are taken by games.services.locks.
_SNAPSHOT = PreparedSelect(lambda pk: Hand.objects.filter(pk=pk).only("snapshot", "snapshot_seq"))
_SAVE_STEP = PreparedUpdate(Hand, STEP_FIELDS)
_SAVE_STEP_AND_SNAPSHOT = PreparedUpdate(Hand, STEP_FIELDS + SNAPSHOT_FIELDS)
_LOG_ACTIONS = PreparedInsert(HandAction)
# The easy bot (a bot seat filled at level easy); every other automatic seat — a strong bot
# seat, 托管, a seat whose player left or is away — plays the strong bot.  The greedy bot keeps
# no state between decisions and is shared; a strong bot remembers what it saw earlier in the
# hand (a declared 报听), so each seat's is kept between steps (games/runtime/bot_memory.py).
EASY_BOT = GreedyBot()

# Marks a kept window answer that a person's automatic setting gave (auto-win), not their command.
BY_SETTING = "by_setting"

# HandStep.save writes the log rows as tuples in this order: a new field must be added there too.
assert _LOG_ACTIONS.field_names == ["hand_id", "seq", "index", "action", "event_count", "created_at"]


@dataclass
class HandStep:
    """One command's work on a locked hand: engine changes collected, saved once.

    Who must act next comes from the engine's driver (:func:`games.engine.turn`), as in the
    simulator, the replays and the scenario runner; this class adds the table's side: which
    seats are people, the clock, and claim protection.
    """

    row: Hand
    engine: EngineHand
    seats: list[Seat]
    events: list[Any] = field(default_factory=list)
    now: datetime = field(default_factory=lambda: timezone.now())  # (looked up per step: test clocks)
    # (action, number of events it produced): the HandAction log that replays need.
    actions: list[tuple[Action, int]] = field(default_factory=list)
    # The people's automatic table settings by user id (see prefs), read on first need.
    _prefs: dict[int, PlayerTableSettings] | None = field(default=None, repr=False)
    # The engine's Turn until the next action: a step asks for it a dozen times (who is owed,
    # protection, claims, automatic settings) and every action goes through ``apply``.
    _turn: Turn | None = field(default=None, repr=False)
    _strong: list[Bot] | None = field(default=None, repr=False)  # a hand never saved (tests, tools)

    def seat_at(self, engine_seat: int) -> Seat:
        return self.seats[self.row.position_of(engine_seat)]

    def prefs(self, engine_seat: int) -> PlayerTableSettings | None:
        """The seat's player's automatic table settings (games.services.presets), read once per
        step and only when a person owes a decision."""
        if self._prefs is None:
            self._prefs = presets.load(s.user_id for s in self.seats if not s.is_bot)
        seat = self.seat_at(engine_seat)
        return self._prefs.get(seat.user_id) if seat.user_id is not None else None

    def claims_for_real(self, engine_seat: int) -> bool:
        """A claim the seat waits to decide on: it has one and does not auto-pass."""
        return self.has_claim(engine_seat) and not presets.passes_claims(self.prefs(engine_seat))

    def preset_applied(self, people: list[int]) -> bool:
        """Take the first immediate automatic action (auto-win, 摸切) of these people, if any."""
        t = self.turn()
        answered = self.row.window_answers or {}
        for s in people:
            action = presets.immediate_action(t, s, self.prefs(s))
            if action is None or str(s) in answered:
                continue
            if t.in_window and self.protected_window():
                # Kept like a person's answer, but it never closes the window early: the setting
                # answers only when there is a claim, so its quick answer would tell one.
                self.record_answer(action, by_setting=True)
                continue
            self.apply(action)
            return True
        return False

    def automatic(self, engine_seat: int) -> bool:
        s = self.seat_at(engine_seat)
        if s.is_bot or s.auto_play or s.left:
            return True
        if grace.expired(s, self.row.table, self.now):
            # The table waited its offline grace for this player: 托管 takes the seat now, shown
            # like any other 托管 (and ended like it, by the player's own next action).
            s.auto_play = True
            Seat.objects.filter(pk=s.pk).update(auto_play=True)
            log.info("auto-play after offline grace", extra={"table": self.row.table_id, "seat": s.position})
            return True
        return False

    def grace_deadline(self, people: list[int], deadline: datetime) -> datetime:
        """A turn's deadline, held open until the offline grace of the people owing it is over
        (games.services.grace): the table waits for a player who is not there yet."""
        for s in people:
            until = grace.grace_until(self.seat_at(s), self.row.table)
            if until is not None and until > deadline:
                deadline = until
        return deadline

    def turn(self) -> Turn:
        """Who owes a decision now, and what the rules force (the engine's driver)."""
        if self._turn is None:
            self._turn = turn(self.engine)
        return self._turn

    def pending(self) -> list[int]:
        """Engine seats that owe a decision now: whoever has a legal action (claim windows,
        the player whose turn it is, and any question a rule set puts, such as 漳州's 抢金)."""
        return self.turn().owed

    def apply(self, action: Action) -> None:
        self._turn = None
        events = self.engine.apply(action)
        self.events.extend(events)
        self.actions.append((action, len(events)))
        if self.engine.phase == CLAIM and any(e.kind in ("discard", "add_kong") for e in events):
            self.row.window_opened_at = self.now

    def has_claim(self, engine_seat: int) -> bool:
        """Does this seat hold a real choice (more than a pass): a claim in the open window,
        or an option in a rule set's prompt (漳州 抢金, 抢暗杠)?"""
        return self.turn().has_claim(engine_seat)

    # -- claim protection (docs/protocol.md, "Claim protection") ------------------------------
    def protected_window(self) -> bool:
        """Is the open claim window a uniform one: the same clock for everyone, every answer kept
        private until it closes?  So when two or more people sit at the table (who is a bot or on
        托管 is public, so this tells nobody anything); a lone person has nobody at the table to
        hide a claim from, and gets the quicker pace."""
        if self.engine.phase != CLAIM or settings.CAISHEN_CLAIM_PROTECTION != "uniform":
            return False
        t = self.turn()  # (a window's turn is cheap: read off the window)
        if t.asked:
            return False  # a rule set's question (漳州 抢金) is answered first, as before
        people = [s for s in range(4) if not self.automatic(s)]
        return len(people) >= 2 and any(s in t.window_seats for s in people)

    def record_answer(self, action: Action, by_setting: bool = False) -> bool:
        """Keep a person's answer to the protected window off the engine (and off every other
        reader's frames) until the window closes.  Returns whether it closes now (see
        :meth:`claim_decided`).  ``by_setting``: the answer is the person's automatic setting's
        (auto-win), not a command of theirs."""
        reason = self.engine.refusal(action)
        if reason is not None:
            raise IllegalAction(reason)
        answers = dict(self.row.window_answers or {})
        if str(action.seat) in answers:
            raise IllegalAction(refuse("window_answer_kept", "you have already answered this discard"))
        answers[str(action.seat)] = {**action.to_json(), BY_SETTING: True} if by_setting else action.to_json()
        self.row.window_answers = answers
        return self.claim_decided()

    def claim_decided(self) -> bool:
        """May the protected window close now, before its deadline?  Only once every person it
        asks has answered with a command of their own: when that happens depends on when people
        answer, never on what anyone else could claim.  The window then closes whatever the
        answers (a claim takes the tile, or nobody's does).

        Closing as soon as a claim was sure to take the tile (a bot's, or a person's) told the
        people who had answered whether another person could still claim: the window stayed
        open exactly while one could (docs/protocol.md, "Claim protection")."""
        window = self.engine.window
        if window is None:
            return False
        answers = self.row.window_answers or {}
        people = [s for s in window.waiting_on() if not self.automatic(s)]
        return all(str(s) in answers and not answers[str(s)].get(BY_SETTING) for s in people)

    def apply_recorded(self, pass_the_rest: bool = False) -> None:
        """Apply the protected window's recorded answers (in seat order: the rule set's claim
        priority decides between them, not the order they came in); with ``pass_the_rest``
        also the passes of seats with nothing to claim, which closes the window."""
        answers = self.row.window_answers or {}
        self.row.window_answers = {}
        for key in sorted(answers, key=int):
            t = self.turn()
            if t.in_window and not t.asked and int(key) in t.legal:  # still waited on in the window
                self.apply(Action.from_json(answers[key]))
        if pass_the_rest:
            for action in idle_passes(self.engine):
                self.apply(action)

    def bot(self, engine_seat: int) -> Bot:
        """The bot that plays an automatic seat: the easy one for an easy bot's chair, else the
        seat's strong one, which played its earlier steps in this process."""
        seat = self.seat_at(engine_seat)
        if seat.is_bot and seat.bot_level == Seat.EASY:
            return EASY_BOT
        if self.row.pk is not None:
            return runtime().bots.bot(self.row.pk, engine_seat)
        if self._strong is None:
            self._strong = [StrongBot() for _ in range(4)]
        return self._strong[engine_seat]

    def choose(self, hand: EngineHand, engine_seat: int, legal: list[Action]) -> Action:
        """The driver's chooser for the automatic seats (games.engine.advance)."""
        return self.bot(engine_seat).choose(hand, engine_seat, decision_rng(hand, engine_seat), legal)

    def bot_action(self, engine_seat: int) -> Action:
        return self.bot(engine_seat).choose(self.engine, engine_seat, decision_rng(self.engine, engine_seat))

    def advance(self) -> None:
        """Let the rules, bots and 托管 seats act until a person must decide (or a pause is due).

        The play loop is the engine's (:func:`games.engine.advance`, the simulator's too); this
        adds the people's side: their automatic settings, the clock, and claim protection."""
        bot_delay = float(settings.CAISHEN_BOT_DELAY)
        for _ in range(1000):
            # Bots answer a claim window at once beside people (their answers are private);
            # people get the clock.
            t = advance(self.engine, self.choose, self.apply, automatic=self.automatic, pause_before_bots=bot_delay > 0)
            self._turn = t  # the engine as advance left it
            pending = t.owed
            if not pending:
                break
            people = [s for s in pending if not self.automatic(s)]
            if people:
                if self.preset_applied(people):
                    continue
                if self.engine.phase != CLAIM:
                    turn_ends = self.now + timedelta(seconds=self.row.table.turn_seconds)
                    self.row.deadline_at = self.grace_deadline(people, turn_ends)
                    return
                if self.protected_window():
                    # Claim protection: one clock for every discard, whoever holds a claim; the
                    # answers are kept until it runs out (or a claim takes the tile).
                    opened = self.row.window_opened_at or self.now
                    self.row.deadline_at = opened + timedelta(seconds=self.row.table.claim_seconds)
                    return
                if any(self.claims_for_real(s) for s in people):
                    self.row.deadline_at = self.now + timedelta(seconds=self.row.table.claim_seconds)
                    return
                # Weaker protection (CAISHEN_CLAIM_PROTECTION=pause, or a lone person at the
                # table): seats with nothing to claim pass after one uniform pause.
                until = (self.row.window_opened_at or self.now) + timedelta(
                    seconds=float(settings.CAISHEN_DISCARD_PAUSE)
                )
                if self.now < until:
                    self.row.deadline_at = until
                    return
                for s in people:
                    self.apply(Action(s, PASS))
                continue
            # A bot is next (the loop paused before it): it acts after its delay, on a timer's wake-up.
            self.row.deadline_at = self.now + timedelta(seconds=bot_delay)
            return
        if self.engine.ended:
            self.finish()

    def finish(self) -> None:
        """Settle the ended hand and prepare the match's next one."""
        row, table = self.row, self.row.table
        result = self.engine.result
        assert result is not None
        row.status = Hand.FINISHED
        row.finished_at = self.now
        row.result = result.to_json()
        if settings.CAISHEN_SETTLEMENT == "celery":
            hand_id = row.pk
            transaction.on_commit(lambda: settlement.queue_settlement(hand_id), robust=True)
        else:
            row.deltas = settlement.settle_hand(row, result, self.seats)
            row.settled = True
        rules = get_variant(table.variant)
        table.dealer_position = (table.dealer_position + rules.next_dealer_offset(result)) % 4
        table.context = rules.next_context(result, table.context)
        table.hands_played += 1
        if table.hands_played >= table.hands_total:
            table.status = Table.FINISHED
            row.deadline_at = None
        else:
            row.deadline_at = self.now + timedelta(seconds=settings.CAISHEN_BETWEEN_HANDS_SECONDS)
        table.save()

    def save(self, logged_by_caller: bool = False) -> None:
        """Commit the step: the row's few changed columns and the step's actions appended to the
        hand's record (the whole snapshot only every CAISHEN_SNAPSHOT_EVERY steps and at the
        hand's end: games/records/rebuild.py), then (on commit) the frames, the engine cache and
        the next deadline.  One log line per step: "hand step" here, unless the caller logs the
        step itself (``submit``'s "command" line carries the same fields and the events)."""
        row = self.row
        row.seq += 1
        if row.status == Hand.PLAYING and not self.pending():
            row.deadline_at = None
        if row.status != Hand.PLAYING or row.seq - row.snapshot_seq >= settings.CAISHEN_SNAPSHOT_EVERY:
            row.snapshot, row.snapshot_seq = self.engine.to_json(), row.seq
            _SAVE_STEP_AND_SNAPSHOT(row)
        else:
            _SAVE_STEP(row)  # row.save(update_fields=STEP_FIELDS), compiled once
        row.revision += 1  # the database's trigger did the same for this one UPDATE (live_rows)
        # The actions as plain tuples (HandAction's field order): no model instances.  Their
        # unique (hand, seq, index) refuses a second writer of the same step.
        hand_id, seq, now = row.pk, row.seq, self.now
        _LOG_ACTIONS.rows([(hand_id, seq, i, a.to_json(), n, now) for i, (a, n) in enumerate(self.actions)])
        step_hold.hold_if_armed(row.table_id, hand_id, seq)  # tests only (CAISHEN_TEST_HOLD_STEP): else nothing
        frames = fanout.hand_frames(row, self.engine, self.seats, self.events, self.turn().legal)
        readers = fanout.frame_readers(row.table_id, self.seats)
        # robust: the move is committed; a failing broker or layer afterwards must not skip the
        # other callbacks (clients resync on the gap; the sweepers catch lost timers and settlements).
        engine, seq, seats, deadline = self.engine, row.seq, self.seats, row.deadline_at
        after: list[Callable[[], object]] = [
            lambda: fanout.send_hand_frames(row.table_id, frames, readers),
            lambda: runtime().engines.put(row.pk, seq, row.seed, engine),
            lambda: runtime().positions.record(row.table_id, row.pk, seq),
        ]
        if row.status == Hand.PLAYING:
            after.append(lambda: runtime().rows.put(row, seats))
        if deadline is not None:
            # (a broker that is down is logged; the sweeper finds the deadline on the row)
            after.append(lambda: timers.schedule("hand", row.pk, seq, deadline))
        on_commit_each(after)
        if not logged_by_caller:
            log.info(
                "hand step",
                extra={"table": row.table_id, "hand": row.pk, "seq": row.seq, "events": len(self.events)},
            )


def engine_for_step(row: Hand) -> EngineHand:
    """The engine at ``row.seq``, for a step to change: from this process's cache when it holds
    that very seq, else rebuilt from the hand's record (its snapshot and the actions since).
    The cache entry is taken out here and put back only after a commit (``HandStep.save``), so a
    step that fails part-way cannot leave a half-applied engine behind, and a step applied by
    another process (a new seq) is never mistaken for this one."""
    engine = runtime().engines.take(row.pk, row.seq, row.seed)
    if engine is None:
        if "snapshot" in row.__dict__:
            snapshot, snapshot_seq = row.snapshot, row.snapshot_seq
        else:
            snapshot, snapshot_seq = _snapshot_of(row.pk)  # the row is locked: both are at its seq
        engine = rebuild.engine_at(row.pk, row.seq, snapshot, snapshot_seq)
    return engine


def decoded_engine(row: Hand) -> EngineHand:
    """The engine at ``row.seq`` for reading only (snapshots, the escape rule): rebuilt from the
    hand's record, the cache untouched."""
    return rebuild.engine_of(row)


def engine_for_reading(row: Hand) -> EngineHand:
    """The engine at ``row.seq`` for rendering only: this process's cached one if it holds that
    seq (no decoding; see EngineCache.peek), else decoded from the row."""
    return runtime().engines.peek(row.pk, row.seq, row.seed) or decoded_engine(row)


def _snapshot_of(hand_id: int) -> tuple[dict[str, Any], int]:
    """The snapshot columns alone (a cache miss: in the scaled mode, whenever the previous step
    was applied by another process — so on most timer steps in the worker)."""
    found = _SNAPSHOT(hand_id)
    if not found:
        raise Hand.DoesNotExist(f"hand {hand_id} is gone")
    return dict(found[0].snapshot), found[0].snapshot_seq


def submit(hand_id: int, user: User, command: Any, seq: Any) -> int:
    """A player's command on the hand at ``seq``.  Returns the new seq; raises Refused."""
    with transaction.atomic():
        row = locks.lock_hand(hand_id, seats_next=True)
        try:
            seats, automatic, seat, engine_seat, action = _checked_command(row, user, command, seq)
        except Refused:
            # Refused before anything changed (a stale command races every timer's step): the
            # rows stay as they were, and so may what this process kept of them.
            runtime().rows.put_hand(row)
            raise
        engine = engine_for_step(row)
        step = HandStep(row, engine, seats, _prefs=_people_prefs(automatic, seats))
        window = engine.window
        # An answer to a protected claim window is kept, not applied (claim protection).
        kept = step.protected_window() and window is not None and engine_seat in window.waiting_on()
        try:
            if kept:
                closes = step.record_answer(action)
            else:
                step.apply(action)
        except IllegalAction as exc:
            raise Refused.of(exc) from None
        _forget_timeouts(seat)
        if kept:
            if not closes:
                _keep_answer(step, seat)
                return row.seq
            step.apply_recorded(pass_the_rest=True)  # a claim takes the tile now
        step.advance()
        step.save(logged_by_caller=True)
        log.info(
            "command",
            extra={
                "table": row.table_id,
                "hand": row.pk,
                "seat": seat.position,
                "seq": row.seq,
                "do": action.kind,
                "events": len(step.events),
            },
        )
        return row.seq


def _people_prefs(
    automatic: dict[int, tuple[bool, bool, bool]] | None, seats: list[Seat]
) -> dict[int, PlayerTableSettings] | None:
    """The people's automatic settings when the step read them with its revisions (HandStep.prefs
    reads them on need otherwise)."""
    if automatic is None:
        return None
    return presets.from_flags(automatic, (s.user_id for s in seats if not s.is_bot))


def _checked_command(
    row: Hand, user: User, command: Any, seq: Any
) -> tuple[list[Seat], dict[int, tuple[bool, bool, bool]] | None, Seat, int, Action]:
    """The seats (locked), the people's automatic settings if read with them
    (``locks.lock_step_seats``), the commanding seat, its engine seat and its parsed action, or
    ``Refused`` before anything changed: the command's seq, the hand and the match still on,
    the user seated and not gone, the command well formed.  A refusal after the seats were
    locked keeps them in this process as they were (games.runtime.live_rows)."""
    if not isinstance(seq, int) or isinstance(seq, bool):
        raise Refused("a command must carry the seq it answers", "command_needs_seq")
    if seq != row.seq:
        raise Refused(
            f"stale command: the table is at seq {row.seq}, not {seq}",
            "stale_command",
            {"seq": row.seq, "sent": seq},
        )
    if row.status != Hand.PLAYING:
        raise Refused("the hand is over", "hand_over")
    if row.table.status == Table.ABORTED:
        raise Refused("the match was stopped", "match_aborted")
    seats, automatic = locks.lock_step_seats(row)
    try:
        seat = next((s for s in seats if s.user_id == user.pk), None)
        if seat is None:
            raise Refused("you do not sit at this table", "not_seated")
        if seat.left:
            raise Refused("you left this match: 托管 plays your seat to its end", "left_match")
        engine_seat = row.engine_seat(seat.position)
        try:
            action = parse_action(command, engine_seat)
        except (ValueError, TileNotationError) as exc:
            raise Refused(f"malformed command: {exc}", "malformed_command", {"detail": str(exc)}) from None
    except Refused:
        runtime().rows.put_seats(row.table_id, seats)
        raise
    return seats, automatic, seat, engine_seat, action


def _forget_timeouts(seat: Seat) -> None:
    """The player acted on their own: 托管 ends, and so do the runs that lead to it.

    Both counts are of *consecutive* events: two timeouts in a row, or three disconnects in a
    row ("连续三次断线以上", 004 text).  A reconnect that lasts until the player's own next
    action ends the run of disconnects, so the count starts again at the next one.
    """
    fields: list[str] = []
    if seat.auto_play or seat.timeouts:
        seat.auto_play = False  # 托管 ends when the player acts again
        seat.timeouts = 0
        fields += ["auto_play", "timeouts"]
    if seat.disconnects and seat.connected:
        seat.disconnects = 0
        fields.append("disconnects")
    if fields:
        seat.save(update_fields=fields)


def _keep_answer(step: HandStep, seat: Seat) -> None:
    """A protected window's answer is kept, not applied: only the answering seat hears of it
    (its own snapshot, buttons gone); the row's seq, the clock and every other frame stay as
    they were, so nobody else can tell that anyone answered."""
    row, engine = step.row, step.engine
    Hand.objects.filter(pk=row.pk).update(window_answers=row.window_answers)
    row.revision += 1  # (the trigger's bump for that UPDATE: the rows are kept at it below)
    state = render_state(row.table, step.seats, row, engine, seat.position)
    readers = fanout.frame_readers(row.table_id, step.seats)
    frames = fanout.kept_answer_frame(row, seat.position, state)
    seq = row.seq
    transaction.on_commit(lambda: fanout.send_hand_frames(row.table_id, frames, readers), robust=True)
    transaction.on_commit(lambda: runtime().engines.put(row.pk, seq, row.seed, engine), robust=True)
    seats = step.seats
    transaction.on_commit(lambda: runtime().rows.put(row, seats), robust=True)
    log.info("window answer kept", extra={"table": row.table_id, "hand": row.pk, "seat": seat.position, "seq": seq})


def timed_out(row: Hand, now: datetime) -> None:
    """The running hand's deadline has passed (``row`` locked by the caller, as
    games.services.wakes does): the answers a protected window kept are applied, bots answer,
    and every person still owing a decision takes its default (a timeout; two in a row put the
    seat on 托管), then play goes on until a person must decide."""
    seats, automatic = locks.lock_step_seats(row)
    step = HandStep(row, engine_for_step(row), seats, now=now, _prefs=_people_prefs(automatic, seats))
    step.apply_recorded()  # a protected window's answers, kept until its deadline
    for engine_seat in step.pending():
        if step.engine.ended:
            break
        if step.automatic(engine_seat):
            step.apply(step.bot_action(engine_seat))
            continue
        default = step.turn().default(engine_seat)
        if default is None:
            continue
        counts_as_timeout = step.engine.phase != CLAIM or step.claims_for_real(engine_seat)
        step.apply(default)
        if not counts_as_timeout:
            continue  # the uniform pass of a seat with nothing to claim
        seat = step.seat_at(engine_seat)
        if grace.in_grace(seat, row.table, now):
            continue  # a claim passed while the table waits for its player: no run toward 托管
        seat.timeouts += 1
        if seat.timeouts >= AUTO_AFTER_TIMEOUTS:
            seat.auto_play = True
        seat.save(update_fields=["timeouts", "auto_play"])
    step.advance()
    step.save()
