"""A seat's commands on the table socket, answered: ``act``, ``choose``, ``autoplay``, ``emote``
(docs/protocol.md, "Commands from the client").

Each goes through ``games.services`` (the one write path) for the session's user; what comes
back here is only the socket's reply to its own client — a refusal, or a snapshot after a
failure.  An applied command is answered by the step's frames, which reach every reader.
"""

from __future__ import annotations

import logging
from typing import Any

from channels.db import database_sync_to_async

from games import services
from games.live import emotes
from games.live.table_session import TableSession
from games.runtime.process import table_step
from games.wire.frames import RefusedFrame, ServerFrame, Snapshot, quoted, refused_at, refused_frame

log = logging.getLogger("caishen.table")

COMMANDS = ("act", "choose", "autoplay", "emote")

# A watcher's commands, refused: only a seat acts.
SPECTATOR_REFUSALS: dict[str, RefusedFrame] = {
    "act": refused_frame("spectators cannot act", "spectator_cannot_act"),
    "choose": refused_frame("spectators cannot choose", "spectator_cannot_choose"),
    "autoplay": refused_frame("spectators cannot use 托管", "spectator_cannot_autoplay"),
    "emote": refused_frame("spectators cannot send quick phrases", "spectator_cannot_emote"),
}
# A seat change that failed with an error in the service: what is logged, and the client's answer.
SERVER_FAILURES: dict[str, tuple[str, RefusedFrame]] = {
    "choose": (
        "choice failed",
        refused_frame("the server could not record the answer: try again", "server_failed_choice"),
    ),
    "autoplay": (
        "auto-play switch failed",
        refused_frame("the server could not switch 托管: try again", "server_failed_autoplay"),
    ),
}


async def answer(reader: TableSession, kind: str, content: dict[str, Any]) -> ServerFrame | None:
    """Carry out the command ``kind`` (one of :data:`COMMANDS`) for ``reader``: the reply to its
    client, or None when there is none (applied; an ``emote`` accepted, for the caller to send)."""
    if reader.watching:
        return SPECTATOR_REFUSALS[kind]
    if kind == "act":
        return await act(reader, content)
    if kind == "emote":
        return accept_emote(reader, content)
    return await change_seat(reader, kind, content)


async def act(reader: TableSession, content: dict[str, Any]) -> ServerFrame | None:
    """``{"type": "act", "hand", "seq", "action"}``: a move in the running hand."""
    hand_id, seq = content.get("hand"), content.get("seq")
    if not isinstance(hand_id, int) or isinstance(hand_id, bool):  # (JSON true is no hand id)
        return refused_at(seq, "a command names its hand", "command_needs_hand")
    try:
        await table_step(services.submit)(hand_id, reader.user, content.get("action"), seq)
    except services.Refused as exc:
        return refused_at(seq, str(exc), exc.code, exc.params)
    except Exception:
        # A failure inside the service (the database, the cache) must not crash the socket.
        log.exception("command failed", extra={"table": reader.table_id, "hand": hand_id, "seat": reader.position})
        return await after_failure(reader, hand_id, seq)
    return None


async def after_failure(reader: TableSession, hand_id: int, seq: Any) -> ServerFrame:
    """Where the table stands after a command failed with an error.

    The transaction rolled back, so the hand is still at ``seq``: refused, nothing changed (try
    again).  If the hand is elsewhere (the failure came after the commit), a fresh snapshot.
    """
    state: Snapshot | None
    try:
        state = await database_sync_to_async(reader.state)()
    except Exception:
        state = None
    hand = (state["hand"] if state is not None else None) or {}
    if state is not None and (hand.get("id"), hand.get("seq")) != (hand_id, seq):
        return state
    return refused_at(seq, "the server could not apply the command: try again", "server_failed_command")


async def change_seat(reader: TableSession, kind: str, content: dict[str, Any]) -> RefusedFrame | None:
    """``choose`` (a pre-hand question's answer) or ``autoplay`` (托管 off or on)."""
    try:
        if kind == "choose":
            await table_step(services.choose)(reader.table_id, reader.user, content.get("key"), content.get("value"))
        else:
            await table_step(services.set_auto_play)(reader.table_id, reader.user, content.get("on"))
    except services.Refused as exc:
        return refused_frame(str(exc), exc.code, exc.params)
    except Exception:
        said, frame = SERVER_FAILURES[kind]
        log.exception(said, extra={"table": reader.table_id, "seat": reader.position})
        return frame
    return None


def accept_emote(reader: TableSession, content: dict[str, Any]) -> RefusedFrame | None:
    """``{"type": "emote", "code"}``: None when the seat's quick phrase may go to the table (it
    counts against the seat's rate, games.live.emotes), else the refusal."""
    code = content.get("code")
    if not isinstance(code, str) or code not in emotes.CODES:
        return refused_frame(f"no such quick phrase {quoted(code)}", "unknown_emote", {"code": quoted(code)})
    assert reader.position is not None
    if not emotes.allow(reader.table_id, reader.position):
        return refused_frame(
            "too many quick phrases: wait a moment",
            "emote_rate",
            {"count": emotes.RATE_COUNT, "seconds": int(emotes.RATE_WINDOW)},
        )
    return None
