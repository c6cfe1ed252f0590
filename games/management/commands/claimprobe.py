"""``manage.py claimprobe``: can one seat tell from its frames whether anyone could claim?

Plays scripted people through the table services on a simulated clock (games.tools.claimprobe) and
prints one JSON line: the classifier's accuracy against chance.  It creates users and tables in
the configured database: run it on a throwaway one (scripts/claim-probe.sh does).
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from games.tools.claimprobe import CASES, probe


class Command(BaseCommand):
    help = "Measure whether claim windows' timing tells a seat that someone could claim (claim protection)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--windows", type=int, default=1000, help="claim windows to observe (default 1000)")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--observer", type=int, default=0, choices=range(4), help="the observing chair")
        parser.add_argument(
            "--protection", choices=["uniform", "pause"], default=None, help="default: CAISHEN_CLAIM_PROTECTION"
        )
        parser.add_argument(
            "--case",
            choices=CASES,
            default="clock",
            help="clock: does a window's clock tell that someone could claim (four people); early-close: "
            "does the moment a bot's claim closes it tell the seat that passed whether another person could",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        result = probe(
            opts["windows"],
            seed=opts["seed"],
            observer=opts["observer"],
            protection=opts["protection"],
            case=opts["case"],
        )
        self.stdout.write(json.dumps(result.summary()))
