"""Shared pieces of the browser tests: a daphne on a free port, and driving the table page.

Playwright (Python, sync API) drives Debian's chromium headless against a daphne started here
on a free port with its own SQLite database.  Bots act after 0.05 s and the claim-window pause
is 0.05 s, so a hand takes seconds.  Screenshots go to var/test-artifacts/.

No browser is ever downloaded (`playwright install` must not run): the tests use
/usr/bin/chromium, which scripts/test.sh installs from Debian's packages when it is missing.
Without it (or without Playwright) the tests fail, saying what to install; they are skipped only
when the runner asks for it with ``CAISHEN_SKIP_BROWSER=1``.

The fixtures (`server`, `chromium`) are in conftest.py; import the helpers from here:
``from tests.e2e.browser import sign_up, create_table, ...``.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.daphne_process import free_port, made_once, running_daphne, wait_http

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "var" / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
# Set to 1 by a runner that means to skip the browser tests (README.md, "Test it").
SKIP_BROWSER = "CAISHEN_SKIP_BROWSER"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
# How long a hand played through the page may take: at the tests' pace a hand ends in 10-20 s, but
# on CI's loaded machine (four workers, their browsers and servers on two cores) a step can take
# half a second, and a long hand ran past 45 s while the server kept stepping.
PLAY_TIMEOUT_S = 90
# Each running daphne's log by its URL: a module's own server (a different pace) runs beside the
# session's, and a test must read the one it talks to.  The latest is quoted when the play stalls.
SERVER_LOGS: dict[str, Path] = {}


def server_log(base: str) -> Path:
    """The output of the daphne serving ``base`` (its mail, in the embedded mode)."""
    return SERVER_LOGS[base]


def require_browser() -> None:
    """Fail, saying what to install, when chromium or Playwright is missing; skip only when the
    runner asked for it (``CAISHEN_SKIP_BROWSER=1``, README.md): a run that cannot drive the
    browser must not pass for one that did."""
    missing = browser_missing()
    if missing is None:
        return
    if os.environ.get(SKIP_BROWSER, "") == "1":
        pytest.skip(f"{SKIP_BROWSER}=1: {missing}")
    pytest.fail(f"{missing}; or set {SKIP_BROWSER}=1 to skip the browser tests", pytrace=False)


def browser_missing() -> str | None:
    """What the browser tests lack, with how to install it; None when nothing is missing."""
    if not Path(CHROMIUM).exists():
        return (
            f"{CHROMIUM} is missing: apt-get install chromium fonts-noto-cjk (scripts/test.sh does it when run as root)"
        )
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed: .venv/bin/pip install -e '.[dev]' (scripts/test.sh does it)"
    return None


@contextmanager
def serve(tmp: Path, shared: Path, **settings: str) -> Iterator[str]:
    """Run daphne on a fresh SQLite database in ``tmp``; yields its URL.  The database is a copy
    of one migrated once for the run, the static files collected once for the run, both in
    ``shared`` (a folder every worker of the run sees: tests/daphne_process.run_folder).
    ``settings``: environment variables that replace the fast pace's (``CAISHEN_...="..."``)."""
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp}/e2e.sqlite3",
        "DJANGO_SETTINGS_MODULE": "mahjong_platform.settings",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(40),
        "DJANGO_DEBUG": "0",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DJANGO_STATIC_ROOT": str(shared / "e2e-static"),
        "CAISHEN_VAR_DIR": str(tmp),
        "CAISHEN_BOT_DELAY": "0.05",
        "CAISHEN_BETWEEN_HANDS_SECONDS": "1",
        "CAISHEN_READY_SECONDS": "8",  # the fourth seat's countdown: short enough to watch it unseat
        "CAISHEN_DISCARD_PAUSE": "0.05",  # the claim-window pause after every discard (one person: no uniform window)
        "CAISHEN_TIMERS": "inprocess",
        # The test machine runs the suite and a browser beside this server: they slow its tables'
        # steps without being players, and a refused match start would fail a test that is not
        # about overload (the refusals have their own tests: tests/platform/test_overload*.py,
        # test_admission_server.py, test_loadtest_ramp.py).  The queue sign stays on.
        "CAISHEN_OVERLOAD_STEP_MS": "0",
        "CAISHEN_OVERLOAD_BUSY": "0",
        # Every browser of a worker's run reads pages from 127.0.0.1: one client address for the
        # per-client heavy-read limit, which has tests of its own (test_heavy_read_gate.py,
        # test_loadtest_ramp.py's flood).
        "CAISHEN_HEAVY_READS_PER_S": "0",
        **settings,
    }
    manage = [sys.executable, str(ROOT / "manage.py")]

    def migrate(path: Path) -> None:
        subprocess.run(
            [*manage, "migrate", "--noinput", "-v", "0"],
            cwd=ROOT, env={**env, "DATABASE_URL": f"sqlite:///{path}"}, check=True, timeout=120,
        )  # fmt: skip

    def collect(path: Path) -> None:
        subprocess.run(
            [*manage, "collectstatic", "--noinput", "-v", "0"],
            cwd=ROOT, env={**env, "DJANGO_STATIC_ROOT": str(path)}, check=True, timeout=120,
        )  # fmt: skip

    shutil.copyfile(made_once(shared, "e2e-migrated.sqlite3", migrate), tmp / "e2e.sqlite3")
    made_once(shared, "e2e-static", collect)
    log = tmp / "daphne.log"
    base = f"http://127.0.0.1:{port}"
    SERVER_LOGS[base] = log
    with running_daphne(env, port, log) as proc:
        try:
            wait_http(f"{base}/healthz", proc, log)
            yield base
        finally:
            SERVER_LOGS.pop(base, None)
            if proc.poll() not in (0, -15, None):
                print(log.read_text()[-3000:])


def launch(pw: Any) -> Any:
    return pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)


def new_page(browser: Any, errors: list[str], lang: str = "zh-CN") -> Any:
    context = browser.new_context(viewport={"width": 1366, "height": 900}, locale=lang)
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return page


def moved_on() -> type[Exception]:
    """What a click or a wait raises when the table moved on under it (a detached element, a
    timeout): Playwright's own error.  The play loops catch only this, wait a moment and look
    again; an assertion, or any other error, goes through."""
    from playwright.sync_api import Error

    return Error


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")  # clicks scroll the hand into view; show the header's balance
    page.screenshot(path=str(ARTIFACTS / name))


def server_log_tail() -> str:
    logs = list(SERVER_LOGS.values())
    return logs[-1].read_text(errors="replace")[-4000:] if logs else ""


def number(text: str | None) -> int:
    assert text is not None
    return int(re.sub(r"[^\d+-]", "", text))


def sign_up(page: Any, base: str, username: str | None = None) -> None:
    page.goto(f"{base}/accounts/signup/")
    page.fill("input[name=username]", username or f"e2e{secrets.token_hex(3)}")
    if page.locator("input[name=display_name]").count():
        page.fill("input[name=display_name]", "小明")
    page.fill("input[name=password1]", "Fa1r-Play-2026")
    page.fill("input[name=password2]", "Fa1r-Play-2026")
    page.locator("main form button[type=submit]").click()
    page.wait_for_selector("#wallet-balance")


def create_table(page: Any, base: str, variant: str = "zhejiang_caishen", hands: int = 1) -> None:
    """A table of ``variant``, ``hands`` hands, stake 1, default options: through the lobby's
    form, or the REST API where the form is missing."""
    res = page.goto(f"{base}/tables/new/?variant={variant}")
    if res is not None and res.ok and page.locator("input[name=hands_total]").count():
        page.fill("input[name=hands_total]", str(hands))
        page.fill("input[name=stake]", "1")
        page.locator("main form[method=post] button[type=submit]").click()
    else:
        table_id = page.evaluate(
            """async ([variant, hands]) => {
                const csrf = (document.cookie.match(/csrftoken=([^;]+)/) || [])[1] || "";
                const res = await fetch("/api/tables/", {method: "POST", credentials: "same-origin",
                    headers: {"Content-Type": "application/json", "X-CSRFToken": csrf},
                    body: JSON.stringify({variant, options: {}, stake: 1, hands_total: hands,
                                          turn_seconds: 20, claim_seconds: 8, is_private: false})});
                return (await res.json()).id;
            }""",
            [variant, hands],
        )
        page.goto(f"{base}/tables/{table_id}/")
    page.wait_for_url(re.compile(r".*/tables/\d+/$"))


def sit_fill_and_ready(page: Any, shot_name: str | None = None) -> int:
    """In the waiting room (the creator sits at once): fill the other chairs with bots, confirm
    the stake.  Returns the wallet balance before the match."""
    from playwright.sync_api import expect

    room = page.locator("#mj-room")
    expect(room).to_be_visible()
    balance_before = number(page.text_content("#wallet-balance"))
    expect(room.locator(".chair.you")).to_have_count(1)
    room.locator("[data-cmd=bots]").click()
    expect(room.locator(".chair[data-bot='1']")).to_have_count(3)
    expect(room.locator("[data-cmd=ready]")).to_be_enabled()
    if shot_name:
        shot(page, shot_name)
    room.locator("[data-cmd=ready]").click()
    confirm = page.locator("#mj-confirm")
    expect(confirm.locator("#mj-confirm-stake")).to_have_text("1")  # the stake, shown before confirming
    confirm.locator("[data-cmd=confirm-ready]").click()
    return balance_before


def play_until_hand_end(
    page: Any, mid_shot: str | None = "e2e-2-mid-hand.png", timeout: float = PLAY_TIMEOUT_S, tap: bool = False
) -> int:
    """Discard whenever allowed (the drawn tile first), pass every claim or question; never
    declare 听 or anything else.  Where a first tap only selects (phone, touch: the hand's
    data-select-first), tap the selected tile again.  ``tap``: touch taps instead of clicks.
    Returns our discards."""
    handend = page.locator("#mj-handend .handend-dialog")
    passes = page.locator("#mj-actions button[data-do=pass]")
    drawn = page.locator("#mj-hand .tile.drawn.playable")
    playable = page.locator("#mj-hand .tile.playable")
    discards = 0
    shot_taken = mid_shot is None
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if handend.count() and handend.is_visible():
            return discards
        try:
            if passes.count():
                press(passes.first, tap)
                continue
            if playable.count():
                if not shot_taken and discards >= 3:
                    assert mid_shot is not None
                    shot(page, mid_shot)
                    shot_taken = True
                press(drawn if drawn.count() else playable.last, tap)
                if page.locator("#mj-hand[data-select-first='1']").count():
                    press(page.locator("#mj-hand .tile.selected"), tap)
                discards += 1
                page.wait_for_selector("#mj-hand .tile.playable", state="detached", timeout=3000)
                continue
        except moved_on():  # the table moved on under the click: look again
            page.wait_for_timeout(40)
            continue
        page.wait_for_timeout(40)
    shot(page, "e2e-timeout.png")
    raise AssertionError(f"the hand did not end within {timeout} s; the server's log ends:\n{server_log_tail()}")


def press(target: Any, tap: bool = False) -> None:
    """A click, or a touch tap (the context needs has_touch)."""
    if tap:
        target.tap(timeout=1500)
    else:
        target.click(timeout=1500)


def check_hand_end(page: Any, balance_before: int) -> int:
    """The hand-end dialog: the itemised breakdown, our delta, the wallet moved by exactly that.
    Returns the delta."""
    from playwright.sync_api import expect

    dialog = page.locator("#mj-handend .handend-dialog")
    expect(dialog).to_be_visible()
    rows = page.locator("#mj-breakdown tbody tr")
    assert rows.count() >= 1
    if not page.locator("#mj-details[open]").count():
        page.locator("#mj-details summary").click()  # the formulas are behind "details"
    expect(rows.first).to_be_visible()
    delta = number(page.text_content("#mj-my-delta"))
    assert dialog.get_attribute("data-my-delta") == str(delta)
    expect(page.locator("#mj-wallet-after")).to_be_visible()
    expect(page.locator("#wallet-balance")).to_have_text(str(balance_before + delta))
    assert number(page.get_attribute("#mj-wallet-after", "data-balance")) == balance_before + delta
    expect(page.locator("#mj-seed")).to_have_text(re.compile(r"\S+"))
    return delta
