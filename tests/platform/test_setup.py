"""The embedded mode's plumbing: SQLite in WAL mode, the demo account."""

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

REPO = Path(__file__).resolve().parents[2]


def test_file_database_runs_in_wal_mode(tmp_path):
    # A separate process: the test database is in memory, where WAL does not apply.
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'probe.sqlite3'}"}
    probe = (
        "import django; django.setup()\n"
        "from django.db import connection\n"
        "with connection.cursor() as c:\n"
        "    c.execute('PRAGMA journal_mode'); print(c.fetchone()[0])\n"
        "print(connection.transaction_mode)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO, env=env, capture_output=True, text=True, timeout=60
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["wal", "IMMEDIATE"]


# The settings refuse REDIS_URL when channels-redis cannot be imported.  It is installed with
# the project, so the probe hides it from the import system (every finder answers "not found"
# for it), as on an install without it.
HIDE_CHANNELS_REDIS = """
import sys
class Hide:
    def __init__(self, inner):
        self.inner = inner
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] == "channels_redis":
            return None
        return self.inner.find_spec(name, path, target)
sys.meta_path[:] = [Hide(f) if hasattr(f, "find_spec") else f for f in sys.meta_path]
"""


@pytest.mark.parametrize("hidden", [True, False], ids=["without-channels-redis", "with-channels-redis"])
def test_redis_url_without_channels_redis_refuses_to_start(hidden: bool) -> None:
    env = {**os.environ, "REDIS_URL": "redis://127.0.0.1:6379/0"}
    probe = (HIDE_CHANNELS_REDIS if hidden else "") + "import django; django.setup(); print('started')"
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO, env=env, capture_output=True, text=True, timeout=60
    )

    if hidden:
        assert result.returncode != 0
        assert "REDIS_URL is set but the channels-redis package is not installed" in result.stderr
    else:
        assert result.returncode == 0, result.stderr
        assert result.stdout.split() == ["started"]


@pytest.mark.django_db
def test_ensure_demo_user_is_idempotent():
    call_command("ensure_demo_user", stdout=io.StringIO())
    call_command("ensure_demo_user", stdout=io.StringIO())

    users = get_user_model().objects.filter(username="demo")
    assert users.count() == 1
    assert users.get().check_password("demo12345")


@pytest.mark.django_db
def test_ensure_demo_user_keeps_a_changed_password_unless_asked():
    call_command("ensure_demo_user", stdout=io.StringIO())
    user = get_user_model().objects.get(username="demo")
    user.set_password("changed-by-someone")
    user.save()

    call_command("ensure_demo_user", stdout=io.StringIO())
    user.refresh_from_db()
    assert user.check_password("changed-by-someone")

    call_command("ensure_demo_user", "--reset-password", stdout=io.StringIO())
    user.refresh_from_db()
    assert user.check_password("demo12345")
