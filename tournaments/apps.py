from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tournaments"
    verbose_name = "Tournaments"

    def ready(self) -> None:
        from games import services
        from tournaments.services import duplicate_seed

        if duplicate_seed not in services.SEED_PROVIDERS:
            services.SEED_PROVIDERS.append(duplicate_seed)
