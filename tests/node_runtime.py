"""Node.js for the tests that run the table's own JavaScript modules outside a browser (the
words of i18n.js and refusals.js).  Like the browser, it is required: a missing ``node`` fails
those tests, saying what to install, unless the runner asked to skip the browser's tests
(``CAISHEN_SKIP_BROWSER=1``, README.md)."""

from __future__ import annotations

import os
import shutil

import pytest

SKIP_BROWSER = "CAISHEN_SKIP_BROWSER"


def require_node() -> str:
    """The ``node`` executable's path; fails (or skips, when asked) without one."""
    node = shutil.which("node")
    if node is not None:
        return node
    if os.environ.get(SKIP_BROWSER, "") == "1":
        pytest.skip(f"{SKIP_BROWSER}=1: node is not installed")
    pytest.fail(f"node is not installed: apt-get install nodejs; or set {SKIP_BROWSER}=1 to skip", pytrace=False)
