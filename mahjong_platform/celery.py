"""The Celery app of the scaled mode (docs/operations.md).  The embedded mode never starts it.

celery -A mahjong_platform worker -l info
celery -A mahjong_platform beat -l info
"""

from __future__ import annotations

import os
from typing import Any

from celery import Celery
from celery.signals import task_postrun, task_prerun, worker_init
from django.conf import settings
from django.db import close_old_connections

from mahjong_platform.gc_tuning import tune_for_latency

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mahjong_platform.settings")

app = Celery("caishen")
# The app of every thread.  The tasks are shared_task proxies, which look up the *current* app each
# time they are used; Celery makes a new app current only in the thread that created it, and any
# other thread (daphne's sync_to_async threads queue the wake-ups and settlements on commit) falls
# back to Celery's own default app, which has none of the CELERY_* settings and, without a
# CELERY_BROKER_URL in the environment, queues to amqp://localhost.
app.set_default()
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["games"])
app.conf.beat_schedule = {
    "sweep-deadlines": {"task": "games.sweep", "schedule": float(settings.CAISHEN_SWEEP_SECONDS or 2)},
}

# Database connections in the worker.  Celery's Django fix-up closes every connection before and
# after each task unless CELERY_DB_REUSE_MAX is set: a new PostgreSQL connection (a backend
# fork) for every timer step — a fifth of the worker's CPU at 50 tables (docs/performance.md).
# Instead connections follow Django's own rule, as in a web request: kept for
# DJANGO_CONN_MAX_AGE seconds, health-checked before reuse, dropped after an error.
app.conf.CELERY_DB_REUSE_MAX = 1_000_000  # the fix-up's forced close: once per two million tasks


@task_prerun.connect
def _connections_before_task(**kwargs: Any) -> None:
    close_old_connections()


@task_postrun.connect
def _connections_after_task(**kwargs: Any) -> None:
    close_old_connections()


@worker_init.connect
def _collector_before_forking(**kwargs: Any) -> None:
    """The worker's main process, tasks imported, before the pool forks: the children inherit a
    frozen start-up heap (shared copy-on-write) and the short-pause thresholds (gc_tuning)."""
    tune_for_latency()
