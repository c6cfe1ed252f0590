"""The frames docs/protocol.md lists ("Frame types") are the typed frames of games/wire/frames.py: every
documented frame has a type, every type is documented, and their keys agree (required and
optional alike) — and the frames the server really sends have those keys."""

from __future__ import annotations

import functools
import json
import re
import typing
from pathlib import Path
from typing import Any

import pytest

from games.wire import frames

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


@functools.cache
def documented() -> dict[str, dict[str, tuple[set[str], set[str]]]]:
    """direction ("server", "client") -> frame type -> (required keys, optional keys)."""
    section = DOC.read_text(encoding="utf-8").split("## Frame types", 1)[1].split("\n## ", 1)[0]
    out: dict[str, dict[str, tuple[set[str], set[str]]]] = {}
    for direction, heading in (("server", "From the server:"), ("client", "From the client:")):
        table = section.split(heading, 1)[1].split("\n\n", 2)[1]
        rows: dict[str, tuple[set[str], set[str]]] = {}
        for line in table.splitlines()[2:]:
            kind, keys = re.fullmatch(r"\| `(\w+)` \| (.*) \|", line).groups()  # type: ignore[union-attr]
            named = re.findall(r"`(\w+)`(\?)?", keys)
            assert kind not in rows, f"{kind} documented twice"
            rows[kind] = ({k for k, opt in named if not opt}, {k for k, opt in named if opt})
        out[direction] = rows
    return out


def typed(kinds: dict[str, type[Any]]) -> dict[str, tuple[set[str], set[str]]]:
    return {kind: (set(t.__required_keys__), set(t.__optional_keys__)) for kind, t in kinds.items()}


@pytest.mark.parametrize(("direction", "kinds"), [("server", frames.SERVER_FRAMES), ("client", frames.CLIENT_FRAMES)])
def test_the_documented_frames_are_the_typed_frames(direction: str, kinds: dict[str, type[Any]]) -> None:
    docs, types = documented()[direction], typed(kinds)
    assert set(docs) == set(types), "a frame documented without a type, or typed without documentation"
    for kind in docs:
        assert docs[kind] == types[kind], f"{direction} frame {kind!r}: documented (required, optional) keys differ"


def test_each_type_names_its_own_type() -> None:
    for kinds in (frames.SERVER_FRAMES, frames.CLIENT_FRAMES):
        for kind, t in kinds.items():
            assert typing.get_args(t.__annotations__["type"]) == (kind,), t


def test_the_frames_built_here_have_their_documented_keys() -> None:
    """What the builders of games/wire/frames.py return is exactly one of the documented frames."""
    docs = documented()["server"]
    built = [
        frames.refused_frame("no", "a_code"),
        frames.refused_at(17, "no", "a_code", {"seat": "E"}),
        frames.error_frame("no", "a_code"),
        frames.pong(17),
        frames.emote_shown(2, "thanks"),
        frames.version_refusal({"v": ["1"]}),
    ]
    for frame in built:
        assert frame is not None
        required, optional = docs[frame["type"]]
        assert required <= set(frame) <= required | optional, frame
        json.dumps(frame)  # a frame is JSON


def assert_documented(frame: dict[str, Any], direction: str = "server") -> None:
    """A frame seen on a real socket has the keys its documented type names (the v2 socket tests
    run every frame they receive through this)."""
    required, optional = documented()[direction][frame["type"]]
    assert required <= set(frame) <= required | optional, f"{frame['type']}: keys {sorted(frame)}"
