"""Admission on a real server: work that is not a table's never closes the lobby.

A fresh daphne process serving no table; four people sign up together (Django's password
hashing takes most of a core for a moment each), then one of them creates a table at once. The
table is created: nothing runs that admission protects (games/services/overload.py), whatever the
process's CPU share says. The refusal of a server whose running tables are really slow is
tested on a real server too (tests/platform/test_loadtest_ramp.py) and in test_overload.py.
"""

from __future__ import annotations

import http.cookiejar
import json
import re
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.daphne_process import free_port, isolated_env, running_daphne, wait_http

ROOT = Path(__file__).resolve().parents[2]
VARIANT = "zhejiang_caishen"


class Browser:
    """One person's cookies against the server: sign up through the form, then call the API
    with the session and its CSRF token, as the site's own pages do."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def cookie(self, name: str) -> str:
        return next(c.value for c in self.jar if c.name == name and c.value is not None)

    def sign_up(self, username: str) -> None:
        with self.opener.open(f"{self.base}/accounts/signup/", timeout=30) as page:
            html = page.read().decode()
        found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
        assert found, "the sign-up form has no CSRF token"
        form = {
            "csrfmiddlewaretoken": found.group(1),
            "username": username,
            "password1": "a-long-pass-phrase-42",
            "password2": "a-long-pass-phrase-42",
        }
        request = urllib.request.Request(
            f"{self.base}/accounts/signup/",
            data=urllib.parse.urlencode(form).encode(),
            headers={"Referer": f"{self.base}/accounts/signup/"},
        )
        with self.opener.open(request, timeout=60) as answer:
            assert answer.status == 200 and answer.url.rstrip("/") == self.base, answer.url  # signed in, home
        assert self.cookie("sessionid")

    def post_json(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str]]:
        request = urllib.request.Request(
            f"{self.base}{path}",
            data=json.dumps(body).encode(),
            headers={
                "Content-Type": "application/json",
                "Accept-Language": "en",
                "X-CSRFToken": self.cookie("csrftoken"),
                "Referer": f"{self.base}/",
            },
        )
        try:
            with self.opener.open(request, timeout=30) as answer:
                return answer.status, json.loads(answer.read()), dict(answer.headers)
        except urllib.error.HTTPError as refused:
            return refused.code, json.loads(refused.read() or b"{}"), dict(refused.headers)


def health(base: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{base}/healthz", timeout=10) as answer:
        body: dict[str, Any] = json.loads(answer.read())
    return body


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """A fresh embedded server with the shipped admission settings (none overridden)."""
    db = tmp_path / "admission.sqlite3"
    env = isolated_env(db, tmp_path)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = tmp_path / "daphne.log"
    with running_daphne(env, port, log) as proc:
        wait_http(f"{base}/healthz", proc, log)
        yield base


def test_four_sign_ups_then_a_table_is_created_at_once(server: str) -> None:
    people = [Browser(server) for _ in range(4)]
    with ThreadPoolExecutor(max_workers=4) as pool:  # four people arriving together
        list(pool.map(lambda pair: pair[1].sign_up(f"newcomer{pair[0]}"), enumerate(people)))
    status, body, headers = people[-1].post_json("/api/tables/", {"variant": VARIANT})
    assert status == 201, (status, body, headers.get("Retry-After"), health(server)["load"])
    assert body["variant"] == VARIANT
    load = health(server)["load"]
    assert load["overloaded"] is False and load["refused"] == 0 and load["measured"] is True
    assert load["tables_running"] is False  # a table waiting for players runs no step
