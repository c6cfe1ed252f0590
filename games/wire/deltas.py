"""Protocol v2: a step's frame as the change from the reader's previous state (docs/protocol.md).

A reader's *state* is what a snapshot carries: ``{"table", "seats", "you", "hand"}`` with the
engine's view in ``hand["view"]``.  A step changes a small part of it (the actor's player entry,
whose turn, the wall count, the legal actions), so a v2 ``delta`` frame carries only that:

* ``table``, ``seats``: whole, and only when they differ from the base state;
* ``hand``: the hand's fields that changed, except ``view`` (``seq`` and the clock always);
* ``view``: the view's fields that changed, except ``players``;
* ``players``: the changed player entries, whole, by index (``{"2": {...}}``);
* ``drop``: the keys of ``hand`` and ``view`` the base had and the new state has not.

Applying a delta to the state at ``base`` gives exactly the state at ``seq`` (the property test
``tests/platform/test_protocol_v2.py`` checks this from every start for every reader).  Every value
in a delta is a value of the reader's own new state, so a delta can never carry a tile that the
reader's snapshot would not: the hiding is done once, by the engine's views.

The browser's copy of :func:`apply_delta` is ``static/js/delta.js``; keep the two alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# Always sent, even when equal to the base: the base the client holds may have come from a
# snapshot rendered at another moment, and these are the fields that change with the moment.
HAND_ALWAYS = ("seq", "deadline", "deadline_in_ms")
# Keys that a reader's snapshot may carry and the step's frame does not (a kept answer in a
# protected claim window: games.wire.protocol._with_own_answer): dropped whenever the new state lacks
# them, so a client whose base was such a snapshot does not keep them.
VIEW_SNAPSHOT_ONLY = ("answered",)
_MISSING = object()


class Comparisons:
    """Whether two values differ, remembered for one step's frames: its readers' states share most
    of their values (the table, the seats, what the engine's views share, the other players'
    entries), and so do their bases, rendered together the step before, so each such pair is
    compared once for every reader.  Pairs are keyed by the values' identities: keep every value
    compared alive (the states are) and use one instance for one rendering only."""

    def __init__(self) -> None:
        self._seen: dict[tuple[int, int], bool] = {}

    def differ(self, a: Any, b: Any) -> bool:
        if a is b:
            return False
        key = (id(a), id(b))
        found = self._seen.get(key)
        if found is None:
            found = self._seen[key] = bool(a != b)
        return found


def make_delta(base: dict[str, Any], new: dict[str, Any], compare: Comparisons | None = None) -> dict[str, Any]:
    """The delta body (without ``type``, ``seq``, ``base`` or ``events``) from ``base`` to ``new``.

    Both are reader states of the same hand; the caller checks that (same hand id, consecutive
    steps) and sends the whole state instead when it cannot.  ``compare``: the step's shared
    :class:`Comparisons` (the delta is the same with or without)."""
    differ = (compare or Comparisons()).differ
    out: dict[str, Any] = {"you": new.get("you")}
    if differ(new["table"], base.get("table")):
        out["table"] = new["table"]
    if differ(new["seats"], base.get("seats")):
        out["seats"] = new["seats"]
    old_hand: dict[str, Any] = base.get("hand") or {}
    new_hand: dict[str, Any] = new["hand"]
    hand: dict[str, Any] = {}
    for key, value in new_hand.items():
        if key == "view":
            continue
        if key in HAND_ALWAYS or differ(old_hand.get(key, _MISSING), value):
            hand[key] = value
    out["hand"] = hand
    drop: dict[str, list[str]] = {}
    gone = [k for k in old_hand if k not in new_hand]
    if gone:
        drop["hand"] = gone
    old_view: dict[str, Any] = old_hand.get("view") or {}
    new_view: dict[str, Any] = new_hand["view"]
    view: dict[str, Any] = {}
    for key, value in new_view.items():
        if key == "players":
            continue
        if differ(old_view.get(key, _MISSING), value):
            view[key] = value
    if view:
        out["view"] = view
    gone = [k for k in old_view if k not in new_view]
    gone += [k for k in VIEW_SNAPSHOT_ONLY if k not in new_view and k not in gone]
    if gone:
        drop["view"] = gone
    old_players: list[Any] = old_view.get("players") or []
    players = {
        str(i): p
        for i, p in enumerate(new_view.get("players") or [])
        if i >= len(old_players) or differ(old_players[i], p)
    }
    if players:
        out["players"] = players
    if drop:
        out["drop"] = drop
    return out


def apply_delta(state: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
    """The state after ``delta``: a new dict; ``state`` and the values it shares are not changed."""
    out = {k: v for k, v in state.items() if k not in ("type", "events")}
    out["you"] = delta.get("you", state.get("you"))
    for key in ("table", "seats"):
        if key in delta:
            out[key] = delta[key]
    drop = delta.get("drop") or {}
    hand = {**(state.get("hand") or {}), **delta.get("hand", {})}
    for key in drop.get("hand", ()):
        hand.pop(key, None)
    view = {**(hand.get("view") or {}), **delta.get("view", {})}
    for key in drop.get("view", ()):
        view.pop(key, None)
    if "players" in delta:
        players = list(view.get("players") or [])
        for index, entry in delta["players"].items():
            i = int(index)
            players.extend([None] * (i + 1 - len(players)))
            players[i] = entry
        view["players"] = players
    hand["view"] = view
    out["hand"] = hand
    return out


def chains(state: dict[str, Any] | None, delta: dict[str, Any]) -> bool:
    """Whether ``delta`` applies to ``state``: the same hand, at the delta's base."""
    hand = (state or {}).get("hand") or {}
    return state is not None and hand.get("id") == delta["hand_id"] and hand.get("seq") == delta["base"]


def as_update(state: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
    """The step's whole ``update``: the reader's ``state`` after ``delta`` with the step's seq and
    events (what a client hands its renderer: static/js/net.js, the load client, the probe)."""
    return {**state, "type": "update", "seq": delta["seq"], "events": delta.get("events", [])}


def state_of(frame: Mapping[str, Any]) -> dict[str, Any]:
    """A snapshot or full ``update`` frame as a reader state (the frame's own keys dropped)."""
    return {k: v for k, v in frame.items() if k in ("table", "seats", "you", "hand")}
