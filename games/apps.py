from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = "牌局"

    def ready(self) -> None:
        import mahjong_platform.celery  # noqa: F401  (the Celery app, with its settings, in every process)
        from accounts import closure
        from games import (
            checks,  # noqa: F401  (registers the system checks)
            services,
            tasks,
        )
        from games.runtime import timers
        from games.wire import (
            names,  # noqa: F401  (forgets cached names when a profile changes)
        )

        # The start-up wiring: the timers and the settlement queue are handed what they call, so
        # neither imports the services or the Celery tasks that import them (no import cycle).
        timers.connect(services, tasks.queue_wake)
        services.settlement.connect(tasks.queue_settlement)
        # A player seated at a table cannot close their account (accounts/closure.py).
        if services.lobby.closure_blockers not in closure.CLOSURE_CHECKS:
            closure.CLOSURE_CHECKS.append(services.lobby.closure_blockers)
