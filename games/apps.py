from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = "牌局"

    def ready(self) -> None:
        from games import (
            checks,  # noqa: F401  (registers the system checks)
            names,  # noqa: F401  (forgets cached names when a profile changes)
        )
