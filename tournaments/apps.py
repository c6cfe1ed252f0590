from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tournaments"
    verbose_name = "Tournaments"

    def ready(self) -> None:
        from accounts import closure
        from games import services
        from games.records import disclosure
        from tournaments.round_actions import apply_pending
        from tournaments.services import (
            closure_blockers,
            disclosed_duplicate_hands,
            duplicate_hand_disclosed,
            duplicate_seed,
        )

        # An organiser's replacement of a seated player takes effect at the next hand boundary.
        if apply_pending not in services.match.BEFORE_HAND:
            services.match.BEFORE_HAND.append(apply_pending)
        if duplicate_seed not in services.SEED_PROVIDERS:
            services.SEED_PROVIDERS.append(duplicate_seed)
        # Same walls at every table: a finished hand's secrets wait for the others.
        if duplicate_hand_disclosed not in disclosure.DISCLOSURE_CHECKS:
            disclosure.DISCLOSURE_CHECKS.append(duplicate_hand_disclosed)
        if disclosed_duplicate_hands not in disclosure.DISCLOSURE_FILTERS:
            disclosure.DISCLOSURE_FILTERS.append(disclosed_duplicate_hands)
        # A player entered in (or organising) an unfinished event cannot close their account.
        if closure_blockers not in closure.CLOSURE_CHECKS:
            closure.CLOSURE_CHECKS.append(closure_blockers)
