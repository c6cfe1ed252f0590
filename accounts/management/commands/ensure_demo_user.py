"""Create the demo account if it does not exist yet (safe to run on every start)."""

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction


class Command(BaseCommand):
    help = "Create the demo account (default demo / demo12345) if it is missing."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--username", default="demo")
        parser.add_argument("--password", default="demo12345")
        parser.add_argument(
            "--reset-password",
            action="store_true",
            help="Also set the password when the account already exists.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        username: str = options["username"]
        password: str = options["password"]
        user_model = get_user_model()
        with transaction.atomic():
            lookup: dict[str, Any] = {user_model.USERNAME_FIELD: username}
            user, created = user_model._default_manager.get_or_create(**lookup)
            if created or options["reset_password"]:
                user.set_password(password)
                user.save()
        if created:
            self.stdout.write(f"Created demo account {username!r}.")
        elif options["reset_password"]:
            self.stdout.write(f"Reset the password of demo account {username!r}.")
        else:
            self.stdout.write(f"Demo account {username!r} already exists.")
