"""``python manage.py stepbench``: the write path's CPU per step against the reference's per
action, in process (games/tools/loadtest/stepbench.py; docs/performance.md)."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from games.tools.loadtest import stepbench


class Command(BaseCommand):
    help = "CPU per applied step of the live write path, and per action of the reference server, in one run."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tables", type=int, default=6)
        parser.add_argument("--hands", type=int, default=2, help="hands per table")
        parser.add_argument("--variant", default="zhejiang_caishen")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        timings = stepbench.run(options["tables"], options["hands"], options["variant"])
        s = timings.summary()
        if options["json"]:
            self.stdout.write(json.dumps(s))
            return
        self.stdout.write(
            f"real step      {s['real']['mean_ms']} ms CPU mean, p50 {s['real']['p50_ms']} ms "
            f"({s['real']['count']} commands)\n"
            f"reference      {s['reference']['mean_ms']} ms CPU mean, p50 {s['reference']['p50_ms']} ms "
            f"({s['reference']['count']} actions)\n"
            f"ratio          {s['ratio']} (real step / reference action, the database thread's part only)"
        )
