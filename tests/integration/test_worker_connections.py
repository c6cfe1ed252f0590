"""The Celery worker keeps its PostgreSQL connection between tasks (mahjong_platform/celery.py).

Celery's Django fix-up closes every connection before and after each task unless told not to:
a new PostgreSQL backend (a fork) for every timer step.  Ours keeps it under Django's own rule
(DJANGO_CONN_MAX_AGE, health-checked, dropped after errors).  Run in a configured process on the
run's PostgreSQL database, driving the real fix-up and signal handlers the way a worker does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import json
import django
django.setup()
from types import SimpleNamespace
from celery.fixups.django import DjangoWorkerFixup
from celery.signals import task_postrun, task_prerun
from django.db import connection
from mahjong_platform.celery import app

class WorkerTask:
    request = SimpleNamespace(is_eager=False)

fixup = DjangoWorkerFixup(app)
task = WorkerTask()

def backend() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]

pids = []
for _ in range(3):  # what the worker does around each task
    fixup.on_task_prerun(task)
    task_prerun.send(sender=task)
    pids.append(backend())
    fixup.on_task_postrun(task)
    task_postrun.send(sender=task)

# A task failed mid-query and the connection is gone (PostgreSQL restarted): the next task
# must start on a new connection, not fail on the dead one.
other = __import__("psycopg").connect(os.environ["DATABASE_URL"], autocommit=True)
other.execute("SELECT pg_terminate_backend(%s)", (pids[-1],))
try:
    backend()
except Exception:
    pass  # the dead connection fails once, as a task would
fixup.on_task_prerun(task)
task_prerun.send(sender=task)
after = backend()
print("RESULT " + json.dumps({"pids": pids, "after": after}))
"""


def test_the_worker_reuses_its_connection_and_replaces_a_dead_one(pg_database: str, tmp_path: Path) -> None:
    env = {
        **{
            k: v for k, v in os.environ.items() if not k.startswith(("CAISHEN_", "REDIS_URL", "CELERY_", "DJANGO_CONN"))
        },
        "DJANGO_SETTINGS_MODULE": "mahjong_platform.settings",
        "DATABASE_URL": pg_database,
    }
    script = tmp_path / "worker_connections.py"
    script.write_text("import os\n" + SCRIPT)
    done = subprocess.run([sys.executable, str(script)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.split("RESULT ", 1)[1])
    assert len(set(result["pids"])) == 1  # one backend for three tasks
    assert result["after"] != result["pids"][-1]  # the terminated one was replaced
