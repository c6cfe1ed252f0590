"""The Celery app of the scaled mode (docs/operations.md).  The embedded mode never starts it.

celery -A mahjong_platform worker -l info
celery -A mahjong_platform beat -l info
"""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mahjong_platform.settings")

app = Celery("caishen")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["games"])
app.conf.beat_schedule = {
    "sweep-deadlines": {"task": "games.sweep", "schedule": float(os.environ.get("CAISHEN_SWEEP_SECONDS", "2") or 2)},
}
