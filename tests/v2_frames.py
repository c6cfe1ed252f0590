"""Test clients of the table socket see whole states, as the browser's page does (static/js/net.js):
protocol v2 sends a step as a ``delta`` on the state the client holds.  Pure (games.wire.deltas only),
so the integration tests' processes can use it without Django."""

from __future__ import annotations

import json
from typing import Any

from games.wire.deltas import apply_delta, as_update, chains, state_of


class WholeFrames:
    """A v2 socket's frames as whole states, the way static/js/net.js hands them to the page:
    a delta that chains on the state held becomes the step's whole ``update``, a ``table`` message
    the held state with the new table and seats (an ``update`` without events).  Anything else
    (a delta that does not chain, refusals, pongs) comes through as it is."""

    def __init__(self) -> None:
        self.state: dict[str, Any] | None = None

    def __call__(self, frame: dict[str, Any]) -> dict[str, Any]:
        kind = frame.get("type")
        if kind in ("snapshot", "update"):
            self.state = state_of(frame)
        elif kind == "delta" and chains(self.state, frame):
            assert self.state is not None
            self.state = apply_delta(self.state, frame)
            return as_update(self.state, frame)
        elif kind == "table" and self.state is not None:
            self.state = {**self.state, "table": frame["table"], "seats": frame["seats"], "you": frame["you"]}
            return {**self.state, "type": "update", "seq": (self.state.get("hand") or {}).get("seq"), "events": []}
        return frame


class WholeSocket:
    """A ``websockets`` connection to the table socket whose ``recv()`` gives whole states (as
    JSON text); a delta that does not chain asks for the missing frames, as the browser does.
    A ``table`` message never carries the hand, so one that comes while the hand held is over
    but not yet settled (the scaled mode settles in a Celery task, then announces the table)
    asks for a snapshot: the settled hand, with its deltas."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.whole = WholeFrames()

    async def recv(self) -> str:
        frame = json.loads(await self.ws.recv())
        shown = self.whole(frame)
        held = (self.whole.state or {}).get("hand") or {}
        seen = frame.get("hand_id") == held.get("id") and frame.get("seq", 0) <= (held.get("seq") or 0)
        if shown is frame and frame.get("type") == "delta" and self.whole.state is not None and not seen:
            await self.ws.send(json.dumps({"type": "resync", "hand": held.get("id"), "seq": held.get("seq")}))
        elif frame.get("type") == "table" and held.get("status") == "finished" and held.get("deltas") is None:
            await self.ws.send(json.dumps({"type": "resync"}))
        return json.dumps(shown)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.ws, name)


async def open_whole_socket(url: str, origin: str, cookie: str, open_timeout: float) -> WholeSocket:
    """A signed-in v2 socket (``url`` names ``?v=2``) whose frames come as whole states."""
    import websockets
    from websockets.typing import Origin

    raw = await websockets.connect(
        url, origin=Origin(origin), additional_headers={"Cookie": f"sessionid={cookie}"}, open_timeout=open_timeout
    )
    return WholeSocket(raw)
