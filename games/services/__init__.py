"""The live-table services: the only code that changes tables, seats and hands.

One module per concern; callers use this package (``from games import services``):

* ``lobby`` — creating tables, sitting down and standing up, bots, readiness and its countdown;
* ``match`` — starting a match, the rule set's pre-hand questions (买底/顶底, 飘), dealing;
* ``play`` — the one write path of a running hand: :func:`submit` (a player's command) and
  :func:`wake` (a timer asking) lock the row, check ``seq``, apply the engine, save ``seq + 1``,
  log, and on commit fan out and schedule the next deadline (spec/DESIGN.md §4);
* ``settlement`` — booking finished hands into wallets, idempotently, and the sweeper's marks;
* ``holds`` — each match's stake held in the wallets from its start to its end;
* ``presence`` — sockets coming and going, 托管 after disconnects, walking out (逃跑);
* ``autoplay`` — 托管 by the player's own choice (on, and off again);
* ``grace`` — how long a table waits for a seated player who is not connected;
* ``chair_changes`` — an organiser's changes to a running match: a chair to another player, a stop;
* ``reads`` — snapshots for sockets, and the seats as they are (no lock);
* ``locks`` — the row locks of every writer, and the one order they are taken in;
* ``wakes`` — what a timer's wake-up does (a hand's deadline, the ready countdown), and the
  sweeper's list of deadlines due;
* ``common`` — the refusal, settings, the table-changed signal.
* ``access`` — who may open, watch and act at a table: the pages, the API and the socket ask it;
* ``overload`` — the refusal of new tables and matches while this process is saturated (measured
  by games/runtime/saturation.py).

Below the pages and the socket, above the rest: the package may import games.runtime, games.wire,
games.records, games.rules, games.models and the engine (import-linter's layers contract).

Modules call each other through their module (``match.start_match(...)``), so a test replaces a
function where it lives (``monkeypatch.setattr(services.match, "start_match", ...)``).  Only
public names cross between modules, and only public names are exported here.  The package
imports no timer and no task: GamesConfig.ready hands the timers and the settlement queue what
they call (games/apps.py).
"""

from __future__ import annotations

from games.services import (
    autoplay,
    chair_changes,
    grace,
    holds,
    lobby,
    locks,
    match,
    play,
    presence,
    reads,
    settlement,
    wakes,
)
from games.services.autoplay import set_auto_play
from games.services.common import AUTO_AFTER_DISCONNECTS, AUTO_AFTER_TIMEOUTS, Refused, deadline_token
from games.services.holds import StakeNotCovered
from games.services.lobby import add_bots, create_table, min_balance, quick_play, set_ready, sit, stand
from games.services.match import SEED_PROVIDERS, begin_hand, choose, provided_seed, start_hand, start_match
from games.services.play import STEP_FIELDS, HandStep, decoded_engine, submit
from games.services.presence import leave_match, set_connected
from games.services.reads import current_hand, current_seq, state_for
from games.services.settlement import (
    last_sweep,
    record_sweep,
    settle_finished_hand,
    settle_hand,
    unsettled_hands,
)
from games.services.wakes import due_wakeups, wake, wakeups_between

__all__ = [
    "AUTO_AFTER_DISCONNECTS",
    "AUTO_AFTER_TIMEOUTS",
    "SEED_PROVIDERS",
    "STEP_FIELDS",
    "Refused",
    "HandStep",
    "StakeNotCovered",
    "add_bots",
    "quick_play",
    "autoplay",
    "chair_changes",
    "grace",
    "begin_hand",
    "choose",
    "create_table",
    "current_hand",
    "current_seq",
    "deadline_token",
    "decoded_engine",
    "due_wakeups",
    "holds",
    "last_sweep",
    "leave_match",
    "lobby",
    "locks",
    "match",
    "min_balance",
    "play",
    "presence",
    "provided_seed",
    "reads",
    "record_sweep",
    "set_auto_play",
    "set_connected",
    "set_ready",
    "settlement",
    "settle_finished_hand",
    "settle_hand",
    "sit",
    "stand",
    "start_hand",
    "start_match",
    "state_for",
    "submit",
    "unsettled_hands",
    "wake",
    "wakeups_between",
    "wakes",
]
