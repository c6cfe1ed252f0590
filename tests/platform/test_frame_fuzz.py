"""Fuzzed frames against the live-table socket.

Hypothesis sends arbitrary JSON, protocol-shaped commands with wrong types and values,
non-JSON text, binary and oversized frames to the real consumer (the full ASGI application:
Origin check, session authentication, games.live.consumers.TableConsumer) at a table with a running
hand.  After every frame the socket must answer exactly as docs/protocol.md says (one
``error``/``refused``/``pong``/``snapshot`` frame, never a crash or a close) and nothing the
table owns may change: the hand's seq, snapshot, deadline and logs, the seats, the ledger
and every wallet.  (A ``resync`` is the one frame answered otherwise: with the frames the seat
missed since the position it names, which may be none, or a snapshot.)  At the end a legitimate
discard still applies through the same socket.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from accounts.models import LedgerEntry, Wallet
from core.jsonlimits import loads_bounded
from games import services
from games.engine.tiles import TileNotationError, parse_tile
from games.models import Hand, HandAction, Seat, Table
from games.records.rebuild import event_log
from games.wire.frames import MAX_FRAME
from mahjong_platform.asgi import application
from tests.platform.live_helpers import GOLDEN, ORIGIN, started_rigged, ws_path

pytestmark = pytest.mark.django_db(transaction=True)

FUZZ = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)
# Everything the server may say to a bad frame; and a resync's catch-up (the frames it missed).
ANSWERS = {"error", "refused", "pong", "snapshot", "update", "delta"}


@pytest.fixture(autouse=True)
def fuzz_settings(settings: Any) -> None:
    settings.CAISHEN_BOT_DELAY = 0
    settings.CAISHEN_DISCARD_PAUSE = 0
    settings.CAISHEN_CLAIM_PROTECTION = "pause"  # quick windows (the uniform one: test_claim_protection.py)
    settings.CAISHEN_SWEEP_SECONDS = 0
    settings.CAISHEN_SPECTATOR_DELAY = 0
    settings.CAISHEN_TIMERS = "inprocess"
    # Fuzzing sends hundreds of frames a second: the token bucket (tested on its own in
    # test_socket_security) must not turn every answer into "slow down".
    settings.CAISHEN_SOCKET_RATE = 100_000


class Errors(logging.Handler):
    """Collects ERROR records: a consumer that swallows an exception and logs it has still crashed."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def errors() -> Iterator[Errors]:
    handler = Errors()
    loggers = [logging.getLogger(), logging.getLogger("django")]  # "django" does not propagate
    for logger in loggers:
        logger.addHandler(handler)
    yield handler
    for logger in loggers:
        logger.removeHandler(handler)


# ----------------------------------------------------------------------------- strategies
def mostly(usual: st.SearchStrategy[Any], odd: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """``usual`` three times in four.  (``a | b`` flattens b's own branches, so a plain union
    would draw the protocol's real values far too rarely to get past the first check.)"""
    return st.integers(0, 3).flatmap(lambda i: odd if i == 0 else usual)


SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**62, max_value=2**80)  # beyond a database integer
    | st.integers(max_value=-1)
    | st.floats()  # NaN and Infinity included: Python's json accepts them on the wire
    | st.text(max_size=12)
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
TILE_NAMES = [f"{r}{s}" for s in "mps" for r in range(1, 10)] + list("ESWNCFP") + [f"{r}h" for r in range(1, 9)]
TILES = mostly(
    st.sampled_from(TILE_NAMES)  # real tiles, mostly not in this hand
    | st.sampled_from(["0m", "10p", "9z", "5m5m", "345m", "h", "m", "", " ", "1H", "５m", "e", "🀄"])
    | st.text(alphabet="0123456789mpshESWNCFPxz ", max_size=6),
    SCALARS,
)
VERBS = mostly(
    st.sampled_from(["discard", "chow", "pung", "kong", "add_kong", "win", "pass", "flower"])
    | st.sampled_from(["", "DISCARD", "undo", "resign", "discard "]),
    SCALARS,
)
SEATS = st.sampled_from(["E", "S", "W", "N", "X", 0, 1, 2, 3, -1, 4, None])
ACTIONS = mostly(
    st.fixed_dictionaries({"do": VERBS}, optional={"tile": TILES, "tiles": TILES, "seat": SEATS, "extra": JSON}),
    JSON,
)
TYPES = mostly(st.sampled_from(["act", "choose", "ping", "resync"]), st.sampled_from(["ACT", "", "update"]) | JSON)


@dataclass(frozen=True)
class Frame:
    text: str | None = None
    data: bytes | None = None


def acts(hand_id: int, seq: int) -> st.SearchStrategy[dict[str, Any]]:
    """Commands aimed at this very hand: the real hand and seq are drawn most of the time so
    that the service's own checks (seat, turn, parse, legality) are reached, not only the seq."""
    return st.fixed_dictionaries(
        {
            "type": st.just("act"),
            "hand": mostly(st.sampled_from([hand_id] * 4 + [hand_id + 1, -hand_id, 0]), SCALARS),
            "seq": mostly(st.sampled_from([seq] * 4 + [seq + 1, seq - 1, 0]), SCALARS),
            "action": ACTIONS,
        },
        optional={"extra": JSON},
    )


def commands(hand_id: int, seq: int) -> st.SearchStrategy[dict[str, Any]]:
    """Dicts with the protocol's keys, any of them missing, of the wrong type or out of range."""
    anything = st.fixed_dictionaries(
        {"type": TYPES},
        optional={
            "hand": mostly(st.sampled_from([hand_id, hand_id + 1, -hand_id, 0]), SCALARS),
            "seq": mostly(st.sampled_from([seq, seq + 1, seq - 1, 0]), SCALARS),
            "action": ACTIONS,
            "key": mostly(st.sampled_from(["piao", "buy_base", "counter_base"]), SCALARS),
            "value": JSON,
        },
    )
    return acts(hand_id, seq) | anything


def frames(hand_id: int, seq: int) -> st.SearchStrategy[Frame]:
    as_text: Callable[[Any], Frame] = lambda value: Frame(text=json.dumps(value))  # noqa: E731
    command = commands(hand_id, seq)
    odd = st.one_of(
        JSON.map(as_text),
        st.text(max_size=40).map(lambda t: Frame(text=t)),  # mostly not JSON at all
        st.binary(max_size=64).map(lambda b: Frame(data=b)),
        command.map(lambda c: Frame(data=json.dumps(c).encode())),  # a command, but in a binary frame
        st.builds(  # over the cap: padding in ASCII or in multi-byte characters
            lambda c, n, ch: Frame(text=json.dumps({**c, "pad": ch * n}, ensure_ascii=False)),
            command,
            st.integers(min_value=MAX_FRAME + 1, max_value=3 * MAX_FRAME),
            st.sampled_from(["x", "牌", "🀄"]),
        ),
    )
    return st.integers(0, 1).flatmap(lambda i: odd if i else command.map(as_text))


@dataclass(frozen=True)
class Chair:
    """Where the fuzzed socket's chair stands: its hand at ``seq``, and the step frames this
    process fanned out to the chair and still holds for catch-up (their types, oldest first,
    the last one the step at ``seq``)."""

    hand_id: int
    seq: int
    history: tuple[str, ...] = ()


def expected_answers(frame: Frame, chair: Chair | None = None) -> list[str]:
    """The frames, in order, that docs/protocol.md and the consumer promise for a frame that
    cannot be applied; ``chair`` is the sender's (None: no hand is running)."""
    if frame.text is None or len(frame.text.encode()) > MAX_FRAME:  # binary, or over the cap in bytes
        return ["error"]
    try:
        content = loads_bounded(frame.text)  # the socket's decoder: too deep or too large is an error
    except ValueError:
        return ["error"]
    if not isinstance(content, dict):
        return ["error"]
    kind = content.get("type")
    if kind in ("act", "choose"):
        return ["refused"]
    if kind == "ping":
        # Whatever seq it names: this seat was sent the current state (its snapshot), so the
        # heartbeat only crossed it (games.live.consumers.ping).
        return ["pong"]
    if kind == "resync":
        return resync_answers(content, chair)
    return ["error"]


def resync_answers(content: dict[str, Any], chair: Chair | None) -> list[str]:
    """A seat's v2 ``resync``: the frames it missed since the hand and seq it names, when that
    position is in the running hand and this process holds every frame from there on (none,
    when it names the current step: it missed nothing); else a snapshot (docs/protocol.md,
    "v2: delta frames, the table message, catch-up")."""
    hand, seq = content.get("hand"), content.get("seq")
    if chair is None or type(hand) is not int or type(seq) is not int or hand != chair.hand_id:
        return ["snapshot"]  # no position named (JSON true is no seq), or another hand
    missed = chair.seq - seq
    if not 0 <= missed <= len(chair.history):
        return ["snapshot"]  # ahead of the hand, or further back than the history reaches
    return list(chair.history[len(chair.history) - missed :])


# ---------------------------------------------------------------------- state and socket
def fingerprint(table_id: int, hand_id: int) -> dict[str, Any]:
    """Everything a frame could wrongly change.  Presence fields (connected, connections,
    disconnects) are left out: they move with the test's own connects and closes."""
    hand = Hand.objects.get(pk=hand_id)
    return {
        "hand": [hand.seq, hand.status, hand.snapshot, hand.snapshot_seq, hand.deadline_at, hand.result, hand.settled],
        "actions": HandAction.objects.filter(hand=hand).count(),
        "engine": services.decoded_engine(hand).to_json(),
        "table": list(Table.objects.filter(pk=table_id).values("status", "pre_hand", "hands_played", "context")),
        "seats": list(
            Seat.objects.filter(table_id=table_id)
            .order_by("position")
            .values("user_id", "is_bot", "ready", "auto_play", "timeouts", "left")
        ),
        "ledger": LedgerEntry.objects.count(),
        "wallets": dict(Wallet.objects.values_list("pk", "balance")),
    }


def session_cookie(user: Any) -> list[tuple[bytes, bytes]]:
    """A real signed-in session: the socket authenticates like a browser's."""
    client = Client()
    client.force_login(user)
    return [*ORIGIN, (b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())]


async def next_output(comm: WebsocketCommunicator) -> dict[str, Any]:
    """The next frame the server sends; a close (or a crashed consumer) fails the test."""
    message = await comm.receive_output(timeout=5)
    assert message["type"] == "websocket.send", f"the socket closed or misbehaved: {message}"
    frame: dict[str, Any] = json.loads(message["text"])
    return frame


async def open_socket(table_id: int, headers: list[tuple[bytes, bytes]], seq: int) -> WebsocketCommunicator:
    comm = WebsocketCommunicator(application, ws_path(table_id), headers=headers)
    connected, code = await comm.connect(timeout=5)
    assert connected, code
    # Connecting sends a snapshot and (seat now connected) a table change; a heartbeat marks
    # the end of that noise so every later frame answers exactly one fuzzed frame.
    await comm.send_json_to({"type": "ping", "seq": seq})
    while (await next_output(comm))["type"] != "pong":
        pass
    return comm


async def send(comm: WebsocketCommunicator, frame: Frame) -> None:
    # The raw ASGI message: send_to() refuses empty frames, which a client can still send.
    if frame.data is not None:
        await comm.send_input({"type": "websocket.receive", "bytes": frame.data})
    else:
        await comm.send_input({"type": "websocket.receive", "text": frame.text})


# ---------------------------------------------------------------------------------- tests
@pytest.mark.slow
def test_fuzzed_frames_change_nothing_and_a_real_move_still_applies(errors: Errors) -> None:
    table, hand, users = started_rigged("fz")
    assert hand.engine_seat(0) == 0  # chair 0 is East and must discard
    # Starting the match applied the hand's first step, and this process fanned its frame out to
    # every chair (a whole update: there is no earlier frame for a delta to apply to) and keeps
    # it for catch-up.  So South's resync from seq 0 is answered with that update, and one that
    # names the current seq with nothing at all: it missed nothing.
    assert hand.seq == 1
    south_chair = Chair(hand.pk, hand.seq, history=("update",))
    # Freeze the clock: no timer may move the hand while hypothesis runs (wake() ignores a
    # hand without a deadline), so any change below can only come from a fuzzed frame.
    Hand.objects.filter(pk=hand.pk).update(deadline_at=None)
    before = fingerprint(table.pk, hand.pk)
    # South sits at the table but it is East's turn: nothing South sends may be applied.
    south = session_cookie(users[1])

    # Always tried: resyncs from the step before (caught up), the current step (nothing) and ahead.
    resyncs = [Frame(text=json.dumps({"type": "resync", "hand": hand.pk, "seq": hand.seq + d})) for d in (-1, 0, 1)]

    @FUZZ
    @example(batch=resyncs)
    @given(batch=st.lists(frames(hand.pk, hand.seq), min_size=1, max_size=6))
    def run(batch: list[Frame]) -> None:
        # Every example opens and closes a socket; the third close would put the seat in 托管,
        # an artefact of the harness, so the disconnect count is reset.
        Seat.objects.filter(table=table).update(disconnects=0)

        async def scenario() -> None:
            comm = await open_socket(table.pk, south, hand.seq)
            for frame in batch:
                await send(comm, frame)
                expected = expected_answers(frame, south_chair)
                answers = [await next_output(comm) for _ in expected]
                assert [a["type"] for a in answers] == expected, (frame, answers)
                assert all(a["type"] in ANSWERS for a in answers)
                # A catch-up is the missed steps in order, up to the hand's current one.
                steps = [a["seq"] for a in answers if a["type"] in ("update", "delta")]
                assert steps == list(range(hand.seq - len(steps) + 1, hand.seq + 1)), (frame, answers)
                assert await database_sync_to_async(fingerprint)(table.pk, hand.pk) == before, frame
            # Still usable, and nothing extra was queued behind the answers.
            await comm.send_json_to({"type": "ping", "seq": hand.seq})
            assert await next_output(comm) == {"type": "pong", "seq": hand.seq}
            await comm.disconnect()

        async_to_sync(scenario)()
        assert [r.getMessage() for r in errors.records] == [], batch

    run()

    east = session_cookie(users[0])

    async def legitimate() -> dict[str, Any]:
        comm = await open_socket(table.pk, east, hand.seq)
        await comm.send_json_to(
            {"type": "act", "hand": hand.pk, "seq": hand.seq, "action": {"do": "discard", "tile": "6s"}}
        )
        update = await next_output(comm)
        await comm.disconnect()
        return update

    update = async_to_sync(legitimate)()
    assert (
        update["type"] in ("delta", "update") and update["seq"] == hand.seq + 1
    )  # a delta if this process had the base
    after = Hand.objects.get(pk=hand.pk)
    assert after.seq == hand.seq + 1
    assert HandAction.objects.filter(hand=after).count() > before["actions"]
    assert {"kind": "discard", "seat": "E", "tile": "6s"} in update["events"]
    assert [e.kind for seq, e in event_log(after) if seq == after.seq].count("discard") == 1


def maybe_legal(content: Any, hand_id: int, seq: int, legal: list[dict[str, Any]]) -> bool:
    """Could this command be one of East's legal moves?  (Python equality, as the server's.)"""
    if not isinstance(content, dict) or content.get("type") != "act" or content.get("hand") != hand_id:
        return False
    if content.get("seq") != seq or isinstance(content.get("seq"), bool):
        return False
    action = content.get("action")
    if not isinstance(action, dict):
        return False
    tile = action.get("tile")
    try:
        parsed = parse_tile(tile) if isinstance(tile, str) else tile
    except TileNotationError:
        return False
    return any(
        action.get("do") == a["do"] and (a.get("tile") is None or parsed == parse_tile(a["tile"])) for a in legal
    )


def test_fuzzed_commands_from_the_seat_on_turn_are_refused(errors: Errors) -> None:
    table, hand, users = started_rigged("ft")
    Hand.objects.filter(pk=hand.pk).update(deadline_at=None)  # freeze the clock, as above
    legal = services.state_for(table, users[0])["hand"]["view"]["legal_actions"]
    assert {a["do"] for a in legal} == {"discard"}  # GOLDEN: East may only discard
    assert {a["tile"] for a in legal} == set(GOLDEN["E"].split())
    before = fingerprint(table.pk, hand.pk)
    east = session_cookie(users[0])

    @FUZZ
    @given(batch=st.lists(acts(hand.pk, hand.seq), min_size=1, max_size=6))
    def run(batch: list[dict[str, Any]]) -> None:
        # Only commands that cannot be a legal move: those must be refused with a reason.
        assume(not any(maybe_legal(c, hand.pk, hand.seq, legal) for c in batch))
        Seat.objects.filter(table=table).update(disconnects=0)

        async def scenario() -> None:
            comm = await open_socket(table.pk, east, hand.seq)
            for content in batch:
                frame = Frame(text=json.dumps(content))
                await send(comm, frame)
                answer = await next_output(comm)
                assert [answer["type"]] == expected_answers(frame), (content, answer)
                if answer["type"] == "refused":
                    assert isinstance(answer["reason"], str) and answer["reason"]
                assert await database_sync_to_async(fingerprint)(table.pk, hand.pk) == before, content
            await comm.disconnect()

        async_to_sync(scenario)()
        assert [r.getMessage() for r in errors.records] == [], batch

    run()


def test_fuzzed_answers_to_an_open_pre_hand_question_are_refused(errors: Errors) -> None:
    """东北 asks everyone's 飘 before the deal: a wrong key, value or JSON type changes nothing."""
    from django.contrib.auth import get_user_model

    users = [get_user_model().objects.create_user(f"pq{i}", password="pw-123456") for i in range(4)]
    table = services.create_table(users[0], "dongbei", {}, stake=1)
    for u in users:
        services.sit(table.pk, u)
    for u in users:
        services.set_ready(table.pk, u)
    table.refresh_from_db()
    Table.objects.filter(pk=table.pk).update(ready_deadline=None)  # nobody defaults while fuzzing
    question = services.state_for(table, users[0])["table"]["pre_hand"]
    assert question["key"] == "piao" and question["answers"] == {}
    choices = question["choices"]
    state = lambda: (  # noqa: E731
        list(Table.objects.filter(pk=table.pk).values("status", "pre_hand", "context")),
        Hand.objects.filter(table=table).count(),
        dict(Wallet.objects.values_list("pk", "balance")),
    )
    before = state()
    headers = session_cookie(users[2])

    def valid(content: dict[str, Any]) -> bool:
        value = content.get("value")
        return content.get("key") == "piao" and any(value == c and type(value) is type(c) for c in choices)

    answers = st.fixed_dictionaries(
        {"type": st.just("choose")},
        optional={
            "key": mostly(st.just("piao"), st.sampled_from(["PIAO", "buy_base", ""]) | SCALARS),
            "value": mostly(
                st.sampled_from([-1, 4, 99, 10**30, 1.0, 5.0, True, False, "1", [1], {"v": 1}, None]), JSON
            ),
        },
    )

    @FUZZ
    @given(batch=st.lists(answers, min_size=1, max_size=6))
    def run(batch: list[dict[str, Any]]) -> None:
        assume(not any(valid(c) for c in batch))
        Seat.objects.filter(table=table).update(disconnects=0)  # no 托管 from the harness's closes

        async def scenario() -> None:
            comm = WebsocketCommunicator(application, ws_path(table.pk), headers=headers)
            connected, _ = await comm.connect(timeout=5)
            assert connected
            await comm.send_json_to({"type": "resync"})  # no hand yet: sync on a snapshot
            while (await next_output(comm))["type"] != "snapshot":
                pass
            for content in batch:
                await comm.send_json_to(content)
                answer = await next_output(comm)
                while answer["type"] in ("snapshot", "table"):  # the connect's own table-change frames
                    answer = await next_output(comm)
                # Refused; or, for a value past the decoder's bounds (10**30), an error frame.
                assert [answer["type"]] == expected_answers(Frame(json.dumps(content), None)), (content, answer)
                assert await database_sync_to_async(state)() == before, content
            await comm.disconnect()

        async_to_sync(scenario)()
        assert [r.getMessage() for r in errors.records] == [], batch

    run()
    services.choose(table.pk, users[2], "piao", choices[-1])  # a real answer is still taken
    table.refresh_from_db()
    assert table.pre_hand is not None and table.pre_hand["answers"] == {"2": choices[-1]}


def test_the_frame_cap_is_in_bytes() -> None:
    table, hand, users = started_rigged("fb")
    frame = json.dumps({"type": "ping", "seq": hand.seq, "pad": "🀄" * (MAX_FRAME // 2)}, ensure_ascii=False)
    assert len(frame) <= MAX_FRAME < len(frame.encode())  # 4 bytes per character: ~32 KiB on the wire

    south = session_cookie(users[1])

    async def scenario() -> dict[str, Any]:
        comm = await open_socket(table.pk, south, hand.seq)
        await comm.send_to(text_data=frame)
        answer = await next_output(comm)
        await comm.disconnect()
        return answer

    answer = async_to_sync(scenario)()
    assert answer["type"] == "error" and "too large" in answer["reason"]
