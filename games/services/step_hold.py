"""A test hook: hold one table step with its transaction open (``CAISHEN_TEST_HOLD_STEP``).

Off unless the setting names a folder, and a step passes here only after its rows are written
and before they are committed.  While the file ``arm`` is in the folder, the next step that
passes takes the file away (one step only, whichever process gets there first), writes ``held``
(the hand, the seq being written, this process's id) and waits, its transaction open and the
hand's row locked, until ``release`` appears (two minutes at most).  The fault tests kill the
process at that moment (tests/integration/test_faults_processes.py): the hand must then be at
the step before or the step after, never between.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from django.conf import settings

HOLD_AT_MOST_S = 120.0


def hold_if_armed(table_id: int, hand_id: int, seq: int) -> None:
    folder = settings.CAISHEN.test_hold_step
    if not folder:
        return
    try:
        (Path(folder) / "arm").unlink()  # only one step takes it: the unlink is atomic
    except FileNotFoundError:
        return
    held = {"table": table_id, "hand": hand_id, "seq": seq, "pid": os.getpid()}
    (Path(folder) / "held.tmp").write_text(json.dumps(held))
    (Path(folder) / "held.tmp").rename(Path(folder) / "held")  # whole, never half-written
    until = time.monotonic() + HOLD_AT_MOST_S
    while not (Path(folder) / "release").exists() and time.monotonic() < until:
        time.sleep(0.05)
