"""The write path's CPU per step, in process, against the reference server's per action.

The load benchmark (``manage.py loadtest --baseline``) measures whole servers over sockets; its
figures move with whatever else the machine runs.  This one measures only the database thread's
part of a step — what ``games.services.play.submit`` costs between a command's arrival and its
commit, frames rendered but not delivered — as CPU time of the calling thread
(``time.thread_time``, which other processes on the machine do not inflate), and in the same run
the reference server's per action (games/tools/loadtest/reference: one UPDATE and its four frames
serialised).  Their ratio is the figure to watch while cutting the step's cost
(docs/performance.md, "Where the real server's step goes").

    python manage.py stepbench --tables 8 --hands 2
"""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.test import override_settings

from games import services
from games.engine import Hand as EngineHand
from games.engine import turn
from games.models import Hand, Table
from games.runtime import fanout
from games.tools.loadtest.reference import consumer as reference


@dataclass
class Timings:
    real: list[float] = field(default_factory=list)  # CPU seconds per submit (one applied step each)
    reference: list[float] = field(default_factory=list)  # CPU seconds per reference action

    def summary(self) -> dict[str, Any]:
        def ms(values: list[float]) -> dict[str, float]:
            ordered = sorted(values)
            return {
                "count": len(values),
                "mean_ms": round(1000 * statistics.fmean(values), 3) if values else float("nan"),
                "p50_ms": round(1000 * ordered[len(ordered) // 2], 3) if values else float("nan"),
            }

        real, ref = ms(self.real), ms(self.reference)
        ratio = round(real["mean_ms"] / ref["mean_ms"], 2) if self.real and self.reference else None
        return {"real": real, "reference": ref, "ratio": ratio}


def _choose(engine: EngineHand, rng: random.Random) -> tuple[int, dict[str, Any]] | None:
    """Somebody who must act and one of their legal actions (a win when there is one)."""
    movers = list(turn(engine).legal.items())
    if not movers:
        return None
    seat, acts = rng.choice(movers)
    wins = [a for a in acts if a.kind == "win"]
    action = wins[0] if wins else rng.choice(acts)
    command = {k: v for k, v in action.to_json().items() if k != "seat"}
    return seat, command


def run(tables: int, hands: int, variant: str = "zhejiang_caishen", seed: int = 1) -> Timings:
    """Play ``hands`` hands at each of ``tables`` fresh tables of four people through the live
    services, timing each command; then as many reference actions on the same hands' rows."""
    timings = Timings()
    rng = random.Random(seed)
    User = get_user_model()
    tag = f"sb{random.Random().getrandbits(32):08x}"
    with (
        override_settings(
            CAISHEN_BOT_DELAY=0,
            CAISHEN_DISCARD_PAUSE=0,
            CAISHEN_CLAIM_PROTECTION="pause",
            CAISHEN_BETWEEN_HANDS_SECONDS=0,
        ),
        # Delivery is the event loop's work, not the step's: the frames are rendered, not sent.
        _no_delivery(),
    ):
        for t in range(tables):
            users = [User.objects.create_user(f"{tag}_{t}_{p}") for p in range(4)]
            table = services.create_table(users[0], variant, {}, stake=1, hands_total=hands)
            for user in users:
                services.sit(table.pk, user)
            for user in users:
                services.set_ready(table.pk, user)
            _play(table, users, rng, timings)
        hand_ids = list(Hand.objects.filter(table__owner__username__startswith=f"{tag}_").values_list("pk", flat=True))
        for i in range(max(len(timings.real), 1)):  # as many reference actions as real steps
            hand_id = hand_ids[i % len(hand_ids)]
            seq = Hand.objects.values_list("seq", flat=True).get(pk=hand_id)
            started = time.thread_time()
            reference.apply_discard(hand_id, seq)
            for position in range(4):
                reference.update_text(hand_id, seq + 1, position, reference.turn_of(seq))
            timings.reference.append(time.thread_time() - started)
    Table.objects.filter(owner__username__startswith=f"{tag}_").update(status=Table.ABORTED)
    return timings


def _play(table: Table, users: list[Any], rng: random.Random, timings: Timings) -> None:
    for _ in range(5000):
        table.refresh_from_db()
        if table.status != Table.PLAYING:
            return
        if table.pre_hand:
            return  # rule sets with a pre-hand question are not benchmarked here
        row = Hand.objects.filter(table=table).order_by("-number").first()
        if row is None:
            return
        if row.status != Hand.PLAYING:
            if row.deadline_at is None:
                return
            services.wake("hand", row.pk, row.seq)  # the next hand of the match
            continue
        engine = services.decoded_engine(row)
        picked = _choose(engine, rng)
        if picked is None:
            services.wake("hand", row.pk, row.seq)
            continue
        engine_seat, command = picked
        chair = next(p for p in range(4) if row.engine_seat(p) == engine_seat)
        started = time.thread_time()
        services.submit(row.pk, users[chair], command, row.seq)
        timings.real.append(time.thread_time() - started)


class _no_delivery:
    def __enter__(self) -> None:
        self.saved = fanout._send_all
        fanout._send_all = lambda messages: None

    def __exit__(self, *exc: object) -> None:
        fanout._send_all = self.saved
