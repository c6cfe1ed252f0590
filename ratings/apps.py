from django.apps import AppConfig


class RatingsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "ratings"
    verbose_name = "Ratings"

    def ready(self) -> None:
        from games.services import settlement
        from ratings.services import hand_booked

        # Rate a match in the settlement of its last hand (same transaction, once per match).
        if hand_booked not in settlement.HAND_BOOKED:
            settlement.HAND_BOOKED.append(hand_booked)
