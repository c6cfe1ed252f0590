"""The live table's wire frames, typed: every frame the socket sends or accepts (docs/protocol.md,
"Frame types"; ``tests/platform/test_frame_types.py`` keeps that list and these types alike).

A frame on the wire is a JSON object whose ``type`` names its kind.  The types here are what the
socket builds and reads; the step frames (``delta``, ``update``) are serialised once per reader
group by ``games.runtime.fanout`` as text and forwarded as is, so their types describe that text.
"""

# No ``from __future__ import annotations``: TypedDict reads NotRequired from real annotations
# (its __optional_keys__, which tests/platform/test_frame_types.py compares with the docs).
from typing import Any, Literal, NotRequired, TypedDict

from core.jsonlimits import JSONLimitError, loads_bounded

PROTOCOL_VERSION = 2  # the one protocol spoken: ?v=2 (docs/protocol.md, "Versions")
MAX_FRAME = 16 * 1024  # bytes a client frame may take: every legal message is far smaller

# Close codes (docs/protocol.md): refusals after the handshake, which a browser can read.
CLOSE_FORBIDDEN = 4403  # a private table this socket's user may not open
CLOSE_NOT_FOUND = 4404  # no such table
CLOSE_SILENT = 4408  # nothing heard from the client past CAISHEN_SOCKET_IDLE_SECONDS
CLOSE_BAD_VERSION = 4426  # a protocol version this server does not speak, v1 included ("upgrade required")
CLOSE_TOO_MANY_SOCKETS = 4429  # this user or address holds CAISHEN_SOCKETS_PER_USER / _PER_ADDRESS already


# -- server -> client -------------------------------------------------------------------------
class Snapshot(TypedDict):
    """A reader's whole state: on connect, on resync, after a change of seats."""

    type: Literal["snapshot"]
    table: dict[str, Any]
    seats: list[dict[str, Any]]
    you: int | None
    hand: dict[str, Any] | None


class Update(TypedDict):
    """A step's whole state with its events, where no delta could be made (games.runtime.fanout)."""

    type: Literal["update"]
    seq: int
    you: int | None
    table: dict[str, Any]
    seats: list[dict[str, Any]]
    hand: dict[str, Any] | None
    events: list[dict[str, Any]]


class Delta(TypedDict):
    """A step as the change from the reader's state at ``base`` (games.wire.deltas)."""

    type: Literal["delta"]
    v: Literal[2]
    hand_id: int
    base: int
    seq: int
    you: int | None
    hand: dict[str, Any]
    view: NotRequired[dict[str, Any]]
    players: NotRequired[dict[str, dict[str, Any]]]
    table: NotRequired[dict[str, Any]]
    seats: NotRequired[list[dict[str, Any]]]
    drop: NotRequired[dict[str, list[str]]]
    events: list[dict[str, Any]]


class TableFrame(TypedDict):
    """The table and seats changed without a step: the hand stays as the client holds it."""

    type: Literal["table"]
    table: dict[str, Any]
    seats: list[dict[str, Any]]
    you: int | None


class RefusedFrame(TypedDict):
    """A command not applied: nothing changed.  ``seq`` when the command named one."""

    type: Literal["refused"]
    seq: NotRequired[Any]
    reason: str
    code: str
    params: dict[str, Any]


class ErrorFrame(TypedDict):
    """A message that is not part of this protocol (or a version not spoken)."""

    type: Literal["error"]
    reason: str
    code: str
    params: dict[str, Any]


class Pong(TypedDict):
    """A heartbeat answered: the hand's current seq (None: no hand)."""

    type: Literal["pong"]
    seq: int | None


class EmoteShown(TypedDict):
    """A seat's quick phrase, to every socket of the table."""

    type: Literal["emote"]
    position: int
    code: str


ServerFrame = Snapshot | Update | Delta | TableFrame | RefusedFrame | ErrorFrame | Pong | EmoteShown


# -- client -> server -------------------------------------------------------------------------
class Act(TypedDict):
    type: Literal["act"]
    hand: int
    seq: int
    action: dict[str, Any]


class Ping(TypedDict):
    type: Literal["ping"]
    seq: int | None


class Resync(TypedDict):
    """With the hand and seq held: the missed frames if the server still has them."""

    type: Literal["resync"]
    hand: NotRequired[int]
    seq: NotRequired[int]


class Choose(TypedDict):
    type: Literal["choose"]
    key: str
    value: Any


class Autoplay(TypedDict):
    type: Literal["autoplay"]
    on: bool


class EmoteSent(TypedDict):
    type: Literal["emote"]
    code: str


ClientFrame = Act | Ping | Resync | Choose | Autoplay | EmoteSent

# type -> its TypedDict, each way (the documented list is checked against these).
SERVER_FRAMES: dict[str, type[Any]] = {
    "snapshot": Snapshot,
    "update": Update,
    "delta": Delta,
    "table": TableFrame,
    "refused": RefusedFrame,
    "error": ErrorFrame,
    "pong": Pong,
    "emote": EmoteShown,
}
CLIENT_FRAMES: dict[str, type[Any]] = {
    "act": Act,
    "ping": Ping,
    "resync": Resync,
    "choose": Choose,
    "autoplay": Autoplay,
    "emote": EmoteSent,
}


def version_refusal(query: dict[str, list[str]]) -> ErrorFrame | None:
    """The ``error`` frame for a socket whose URL asks for a protocol not spoken (then closed with
    CLOSE_BAD_VERSION), None for ``?v=2``.  No ``v`` meant v1, which is retired: refused alike; a
    ``v`` that is not a number is version 0."""
    try:
        version = int(query.get("v", ["1"])[0])
    except ValueError:
        version = 0
    if version == PROTOCOL_VERSION:
        return None
    reason = f"protocol version {version} is not spoken here: use v={PROTOCOL_VERSION}"
    return error_frame(reason, "protocol_version", {"version": version})


def quoted(value: Any, limit: int = 40) -> str:
    """A client's value in an error reason, cut short: an error must not echo kilobytes back."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def refused_frame(reason: str, code: str, params: dict[str, Any] | None = None) -> RefusedFrame:
    """A ``refused`` frame without a seq: the English reason, and the code and parameters the
    table page translates it by (docs/protocol.md lists the codes)."""
    return {"type": "refused", "reason": reason, "code": code, "params": params or {}}


def refused_at(seq: Any, reason: str, code: str, params: dict[str, Any] | None = None) -> RefusedFrame:
    """A ``refused`` frame answering a command that named ``seq`` (echoed as sent, even null)."""
    return {"type": "refused", "seq": seq, "reason": reason, "code": code, "params": params or {}}


def error_frame(reason: str, code: str, params: dict[str, Any] | None = None) -> ErrorFrame:
    """An ``error`` frame: a message that is not part of the protocol."""
    return {"type": "error", "reason": reason, "code": code, "params": params or {}}


def pong(seq: int | None) -> Pong:
    return {"type": "pong", "seq": seq}


def emote_shown(position: int, code: str) -> EmoteShown:
    return {"type": "emote", "position": position, "code": code}


def read_client_text(text_data: str | None) -> tuple[dict[str, Any], None] | tuple[None, ErrorFrame]:
    """A client's message as its JSON object, or the ``error`` frame that answers it: an
    oversized, binary or malformed frame is answered, never allowed to close or crash the table."""
    # The cap is in bytes, as the reason says: in UTF-8 a character takes up to four.
    if text_data is not None and (
        len(text_data) > MAX_FRAME or len(text_data.encode("utf-8", "surrogatepass")) > MAX_FRAME
    ):
        return None, error_frame(
            f"message too large (over {MAX_FRAME} bytes)", "message_too_large", {"limit": MAX_FRAME}
        )
    if text_data is None:
        return None, error_frame("send JSON text frames", "text_frames_only")
    try:
        # Bounded: a deeply nested frame under the size cap crashed the socket with a
        # RecursionError (close 1011) in json.loads (core/jsonlimits.py).
        content = loads_bounded(text_data)
    except JSONLimitError as exc:  # too deep, a number out of range: said, and nothing else
        return None, error_frame(str(exc), "json_limit", {"detail": str(exc)})
    except ValueError:
        content = None
    if not isinstance(content, dict):
        return None, error_frame("messages are JSON objects", "not_a_json_object")
    return content, None
