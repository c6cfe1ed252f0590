"""Can one seat tell from its frames and their timing whether anyone else could claim?

The claim-protection measurement (docs/performance.md, "Claim protection against timing"): four
scripted people play seeded hands through the real table services on a simulated clock (a
discrete-event loop: no sleeping, so 1000 windows take seconds, not hours).  People think
before their own discards, take a human while over a claim (sometimes too long), and do
nothing in a window where they can only pass — as the browser shows no buttons then.

One chair is the observer.  For every claim window opened by another seat's discard it
records what that seat's socket is sent — the frames, the clock they show and when they
arrive — and, as ground truth, whether any *other* seat could claim.  A classifier that sees
only those observations is trained on the first half of the windows and scored on the second;
its accuracy is compared with chance (always guessing the more common answer).  Windows in
which a claim was made are left out of the score: a claim is public, so those say nothing
about protection.

The **early-close** case (``case="early-close"``) asks the same of a window's end: two people
(the observer, and the chair across) and two bots.  The bots answer every window at once; the
observer passes at once in every window, with or without a claim; the other person plays as
above.  Scored are the windows a bot's claim ended (the claim is public; *when* the window
closed is what could tell), and the truth is whether the other *person* could claim: a window
that closed as soon as the bot's claim was sure would stay open exactly while that person could.

Run it with ``scripts/claim-probe.sh`` (a throwaway database) or ``manage.py claimprobe``.
"""

from __future__ import annotations

import contextlib
import heapq
import json
import random
import uuid
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from unittest import mock

from django.conf import settings
from django.contrib.auth import get_user_model
from django.test.utils import override_settings
from django.utils import timezone

from games import services
from games.engine import CLAIM, PASS, GreedyBot, turn
from games.models import Hand, Table
from games.runtime import fanout, timers
from games.wire.deltas import apply_delta, as_update, chains, state_of

CLAIM_EVENTS = {"chow", "pung", "kong", "win"}
CASES = ("clock", "early-close")
EARLY_CLOSE_BOTS = (1, 3)  # chairs the bots take in the early-close case (the observer is chair 0)
PASS_A_CLAIM = 0.5  # how often a scripted person lets a claim the greedy bot would take go


@dataclass
class Window:
    """One claim window as the observer lived it."""

    someone_could_claim: bool  # ground truth: a seat other than the observer held a claim
    claimed: bool  # the window ended with a claim (public)
    deadline_ms: int | None  # the clock shown in the frame that opened it
    duration_ms: int  # from that frame to the next one the observer got
    frames: int  # frames the observer got while it was open (its own answers' included)
    claimed_by_bot: bool = False  # the claim that ended it was a bot's

    def features(self) -> tuple[Any, ...]:
        # Rounded as a person (or a script) watching the clock would see them.
        return (
            None if self.deadline_ms is None else round(self.deadline_ms / 100),
            round(self.duration_ms / 500),
            self.frames,
        )


@dataclass
class ProbeResult:
    protection: str
    windows: list[Window] = field(default_factory=list)
    case: str = "clock"

    def seen(self) -> int:
        """Windows towards the run's target: every window, or in the early-close case the scored
        ones (a bot's claim ends only a few windows in a hundred)."""
        return len(self.scored()) if self.case == "early-close" else len(self.windows)

    def scored(self) -> list[Window]:
        if self.case == "early-close":
            return [w for w in self.windows if w.claimed_by_bot]
        return [w for w in self.windows if not w.claimed]

    def accuracy(self) -> tuple[float, float, int]:
        """(classifier accuracy, chance, windows scored) on the second half of the claim-less windows."""
        data = self.scored()
        half = len(data) // 2
        train, test = data[:half], data[half:]
        if not test:
            return 0.0, 0.0, 0
        # Decision stumps on each observation alone and a lookup on all of them together; the
        # one that does best on the training half is scored on the other half.
        views = [lambda w, i=i: w.features()[i] for i in range(3)] + [lambda w: w.features()]
        best: tuple[float, Any] | None = None
        for view in views:
            guess = _majority_by(train, view)
            fit = sum(guess(w) == w.someone_could_claim for w in train) / max(1, len(train))
            if best is None or fit > best[0]:
                best = (fit, guess)
        assert best is not None
        guess = best[1]
        right = sum(guess(w) == w.someone_could_claim for w in test)
        positives = sum(w.someone_could_claim for w in test)
        chance = max(positives, len(test) - positives) / len(test)
        return right / len(test), chance, len(test)

    def summary(self) -> dict[str, Any]:
        acc, chance, n = self.accuracy()
        return {
            "case": self.case,
            "protection": self.protection,
            "windows": len(self.windows),
            "scored": n,
            "someone_could_claim": sum(w.someone_could_claim for w in self.scored()),
            "accuracy": round(acc, 4),
            "chance": round(chance, 4),
            "advantage": round(acc - chance, 4),
        }


def _majority_by(train: list[Window], view: Any) -> Any:
    votes: dict[Any, Counter[bool]] = defaultdict(Counter)
    for w in train:
        votes[view(w)][w.someone_could_claim] += 1
    overall = Counter(w.someone_could_claim for w in train).most_common(1)
    default = overall[0][0] if overall else False

    def guess(w: Window) -> bool:
        seen = votes.get(view(w))
        return seen.most_common(1)[0][0] if seen else default

    return guess


class SimClock:
    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


@contextlib.contextmanager
def simulated(clock: SimClock, sent: list[tuple[datetime, str, dict[str, Any]]]) -> Iterator[None]:
    """Django's clock is the simulation's; frames are recorded instead of sent; no timer runs
    (the loop below wakes each deadline itself, as a timer would)."""

    def record(messages: list[tuple[str, dict[str, Any]]]) -> None:
        sent.extend((clock.now, group, message) for group, message in messages)

    with (
        mock.patch.object(timezone, "now", clock),
        mock.patch.object(fanout, "_send_all", record),
        mock.patch.object(timers, "schedule", lambda *a, **k: None),
        mock.patch.object(services.play, "log", mock.Mock()),
    ):
        yield


def probe(
    windows: int = 1000, seed: int = 1, observer: int = 0, protection: str | None = None, case: str = "clock"
) -> ProbeResult:
    """Play until ``windows`` claim windows opened by others' discards have been seen (in the
    early-close case: scored, i.e. ended by a bot's claim)."""
    if case not in CASES:
        raise ValueError(f"case must be one of {', '.join(CASES)}, not {case!r}")
    if case == "early-close" and observer in EARLY_CLOSE_BOTS:
        raise ValueError(f"in the early-close case the observer must be a person (chair 0 or 2), not {observer}")
    protection = protection or str(settings.CAISHEN_CLAIM_PROTECTION)
    rng = random.Random(seed)
    bot = GreedyBot()
    User = get_user_model()
    tag = uuid.uuid4().hex[:10]  # (the users only need to be new; the play is seeded)
    people = [User.objects.create_user(f"probe{tag}-{i}") for i in range(4)]
    clock = SimClock(timezone.now())
    sent: list[tuple[datetime, str, dict[str, Any]]] = []
    result = ProbeResult(protection, case=case)
    bots = EARLY_CLOSE_BOTS if case == "early-close" else ()
    overrides = {"CAISHEN_CLAIM_PROTECTION": protection, "CAISHEN_BOT_DELAY": 0.8, "CAISHEN_DISCARD_PAUSE": 0.6}
    with simulated(clock, sent), override_settings(**overrides):
        while result.seen() < windows:
            table = services.create_table(people[observer], "zhejiang_caishen", {}, stake=1, hands_total=64)
            seated = [p for i, p in enumerate(people) if i not in bots]
            for i, p in enumerate(people):
                if i not in bots:
                    services.sit(table.pk, p, i)
            table.seats.filter(user__isnull=True).update(is_bot=True, ready=True)
            for p in seated:
                services.set_ready(table.pk, p)
            _play_match(table, people, observer, rng, bot, clock, sent, result, windows, bots)
    return result


def _play_match(
    table: Table,
    people: list[Any],
    observer: int,
    rng: random.Random,
    bot: GreedyBot,
    clock: SimClock,
    sent: list[tuple[datetime, str, dict[str, Any]]],
    result: ProbeResult,
    wanted: int,
    bots: tuple[int, ...] = (),
) -> None:
    group = fanout.seat_group(table.pk, observer)
    agenda: list[tuple[datetime, int, str, int, int]] = []  # (when, tiebreak, what, chair, seq)
    order = 0
    decided: set[tuple[int, int, int]] = set()  # (hand, seq, chair) already scheduled
    armed: set[tuple[int, int, datetime]] = set()  # deadlines already on the agenda
    open_window: dict[str, Any] | None = None
    held: dict[str, Any] | None = None  # the observer's state, as its v2 client holds it
    for _ in range(200_000):
        table.refresh_from_db()
        if table.status != Table.PLAYING or result.seen() >= wanted:
            return
        row = Hand.objects.filter(table=table).order_by("-number").first()
        if row is None:
            return
        # What the observer was sent since the last look.
        while sent:
            at, to, message = sent.pop(0)
            if to != group or message.get("type") != "table.frame":
                continue  # (a table change makes the socket re-read a snapshot: no timing news)
            frame = json.loads(message["text"])
            held, whole = _as_client_holds(held, frame)
            if whole is not None:
                open_window = _observe(whole, at, row, observer, open_window, result, bots)
        engine = services.decoded_engine(row) if row.status == Hand.PLAYING else None
        if engine is not None:
            owed = turn(engine).legal
            for chair in range(4):
                seat = row.engine_seat(chair)
                legal = owed.get(seat)
                if chair in bots or not legal or (row.window_answers or {}).get(str(seat)) is not None:
                    continue
                passes_at_once = bool(bots) and chair == observer and engine.phase == CLAIM
                if all(a.kind == PASS for a in legal) and not passes_at_once:
                    continue  # nothing to decide: no buttons in the browser
                key = (row.pk, row.seq, chair)
                if key in decided:
                    continue
                decided.add(key)
                think = rng.uniform(0.5, 6.5) if engine.phase == CLAIM else rng.uniform(0.8, 4.0)
                if passes_at_once:
                    think = 0.0  # the early-close prober: it passes the moment the window opens
                order += 1
                heapq.heappush(agenda, (clock.now + timedelta(seconds=think), order, "act", chair, row.seq))
        if row.deadline_at is not None and (row.pk, row.seq, row.deadline_at) not in armed:
            armed.add((row.pk, row.seq, row.deadline_at))
            order += 1
            heapq.heappush(agenda, (max(row.deadline_at, clock.now), order, "wake", row.pk, row.seq))
        if not agenda:
            return
        when, _, what, who, seq = heapq.heappop(agenda)
        clock.now = max(clock.now, when)
        if what == "wake":
            services.wake("hand", who, seq)
            continue
        row.refresh_from_db()
        if row.seq != seq or row.status != Hand.PLAYING:
            continue
        engine = services.decoded_engine(row)
        seat = row.engine_seat(who)
        legal = turn(engine).legal.get(seat)
        if not legal:
            continue
        choice = bot.choose(engine, seat, rng, legal)
        if bots and who == observer and engine.phase == CLAIM:
            choice = next(a for a in legal if a.kind == PASS)
        elif engine.phase == CLAIM and choice.kind != PASS and rng.random() < PASS_A_CLAIM:
            choice = next(a for a in legal if a.kind == PASS)  # people let many claims go
        command = {k: v for k, v in choice.to_json().items() if k != "seat"}
        with contextlib.suppress(services.Refused):
            services.submit(row.pk, people[who], command, seq)


def _as_client_holds(
    held: dict[str, Any] | None, frame: dict[str, Any]
) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """A frame as the browser makes it whole (protocol v2, static/js/net.js): (the state now
    held, the whole frame to look at; None for a delta that does not chain — none should here)."""
    if frame.get("type") != "delta":
        return state_of(frame), frame
    if not chains(held, frame):
        return held, None
    assert held is not None
    held = apply_delta(held, frame)
    return held, as_update(held, frame)


def _observe(
    frame: dict[str, Any],
    at: datetime,
    row: Hand,
    observer: int,
    open_window: dict[str, Any] | None,
    result: ProbeResult,
    bots: tuple[int, ...] = (),
) -> dict[str, Any] | None:
    """Fold one frame the observer got into the window being watched; returns the open one."""
    if open_window is not None:
        open_window["frames"] += 1
        if frame.get("type") == "update" and frame.get("seq") != open_window["seq"]:
            duration = int((at - open_window["at"]).total_seconds() * 1000)
            claims = [e for e in frame.get("events", []) if e.get("kind") in CLAIM_EVENTS]
            claimed = bool(claims)
            winds = (frame.get("hand") or {}).get("winds") or {}
            bot_winds = {winds.get(str(chair)) for chair in bots}
            result.windows.append(
                Window(
                    someone_could_claim=open_window["truth"],
                    claimed=claimed,
                    deadline_ms=open_window["deadline_ms"],
                    duration_ms=duration,
                    frames=open_window["frames"] - 1,
                    claimed_by_bot=any(e.get("seat") in bot_winds for e in claims),
                )
            )
            open_window = None
    hand = frame.get("hand") or {}
    events = frame.get("events", [])
    discard = next((e for e in events if e.get("kind") == "discard"), None)
    mine = (hand.get("winds") or {}).get(str(observer))
    if (
        frame.get("type") == "update"
        and discard is not None
        and discard.get("seat") != mine
        and hand.get("view", {}).get("phase") == "claim"
    ):
        return {
            "seq": frame["seq"],
            "at": at,
            "deadline_ms": hand.get("deadline_in_ms"),
            "frames": 0,
            "truth": _someone_else_could_claim(row, frame["seq"], observer, bots),
        }
    return open_window


def _someone_else_could_claim(row: Hand, seq: int, observer: int, bots: tuple[int, ...] = ()) -> bool:
    """Ground truth from the engine as saved at ``seq`` (frames are read right after the step
    that made them): did a seat other than the observer (and the ``bots``' chairs) hold a real
    claim (more than a pass)?"""
    row.refresh_from_db()
    if row.seq != seq:
        raise RuntimeError(f"the probe read frame {seq} late (the hand is at {row.seq})")
    engine = services.decoded_engine(row)
    window = engine.window
    if engine.phase != CLAIM or window is None:
        return False
    me = row.engine_seat(observer)
    left_out = {me, *(row.engine_seat(chair) for chair in bots)}
    return any(s not in left_out and acts for s, acts in window.options.items())
