"""``python manage.py verify_hand ID [ID ...]``: re-derive each finished hand's wall from its
revealed seed and replay its log through the engine (exit status 1 if any check fails)."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from games.models import Hand
from games.records.replay import verify_hand


class Command(BaseCommand):
    help = "Check finished hands against their seeds: the wall re-derived, every action replayed."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("hands", nargs="+", type=int, help="hand ids")

    def handle(self, *args: Any, **options: Any) -> None:
        failed = 0
        for pk in options["hands"]:
            row = Hand.objects.select_related("table").filter(pk=pk).first()
            report = verify_hand(row) if row is not None else {"hand": pk, "ok": False, "reason": "no such hand"}
            failed += not report["ok"]
            self.stdout.write(json.dumps(report, ensure_ascii=False))
        if failed:
            raise SystemExit(1)
