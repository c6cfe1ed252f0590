"""Several pieces of after-commit work, registered with Django once.

A step hands four or five callbacks to ``transaction.on_commit`` (its frames, the engine cache,
the kept rows, the table's position, the next deadline).  Each registration looks the
connection up again through Django's per-thread registry; one registration for all of them
does it once.  Each callback stays as robust as ``on_commit(robust=True)``: one that fails is
logged and the others still run, since the move is committed and clients resync on a gap.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial

from django.db import transaction

log = logging.getLogger("caishen.after_commit")


def on_commit_each(callbacks: list[Callable[[], object]]) -> None:
    """Run ``callbacks`` in order once the current transaction commits (at once outside one)."""
    transaction.on_commit(partial(_run_each, callbacks), robust=True)


def _run_each(callbacks: list[Callable[[], object]]) -> None:
    for callback in callbacks:
        try:
            callback()
        except Exception:
            log.exception("after-commit work failed (%s)", getattr(callback, "__qualname__", repr(callback)))
