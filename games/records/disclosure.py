"""Whether a finished hand's secrets may be disclosed now: the one place that decides.

A hand's secrets are its seed (and so its wall), the concealed hands revealed at its end, and
its full action log (the replay, with every private draw).  Commit–reveal makes them public the
moment the hand ends — unless the same deal is still being played somewhere else.  Every table
of a duplicate tournament round plays hand *k* from the same seed: table 1's finished hand 1
would give away every concealed tile of hand 1 still running at table 2.

So a finished hand is *withheld* while any registered check objects.  Checks are hooks, like
``games.services.SEED_PROVIDERS``, so games stays independent of tournaments:
``tournaments.apps`` registers one that answers False until every table of the round has
finished that hand number (or its match).  Verdicts are never cached: the hand discloses
itself at the next read after the last table finishes it, with no stale answer to wait out.

What a withheld hand shows (docs/protocol.md, docs/tournaments.md):

* to everyone — no seed (the view's and the hand's ``seed`` are null, and ``withheld`` says
  why); the hand's record, replay, replay page and verification answer 403 with
  :data:`WITHHELD`;
* to watchers and the public — also no revealed hands (``view.revealed`` and the
  ``hand_end`` event's ``hands`` are null);
* to the four players seated at its table — their hand-end result as it was (the result and
  every hand revealed at the end: they played the hand), but not the seed nor the wall.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.models import Hand

WITHHELD = "withheld until every table of the round has finished this hand"

# (finished hand) -> False to withhold its secrets for now; True or None: no objection.
DISCLOSURE_CHECKS: list[Callable[[Hand], bool | None]] = []


def withheld(row: Hand) -> bool:
    """A finished hand whose secrets must stay hidden for now (a running hand is simply not
    finished: its own rules apply)."""
    if row.status != Hand.FINISHED:
        return False
    return any(check(row) is False for check in DISCLOSURE_CHECKS)


def may_disclose(row: Hand) -> bool:
    """May the seed, the revealed hands and the replay of ``row`` be shown to anyone now?"""
    return row.status == Hand.FINISHED and not withheld(row)


def redact_view(view: dict[str, Any], seated: bool) -> dict[str, Any]:
    """An ended engine view without what a withheld hand may not show its reader: the seed for
    everyone, the revealed hands too for a watcher.  A copy: views share dicts between readers."""
    out = dict(view)
    if "seed" in out:
        out["seed"] = None
    if not seated and "revealed" in out:
        out["revealed"] = None
    return out


def redact_event(event: dict[str, Any], seated: bool) -> dict[str, Any]:
    """A rendered event (``Event.for_seat``) of a withheld hand: ``hand_end`` loses its seed, and
    for a watcher the hands it reveals."""
    if event.get("kind") != "hand_end":
        return event
    out = dict(event)
    out["seed"] = None
    if not seated:
        out["hands"] = None
    return out
