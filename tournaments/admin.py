from django.contrib import admin

from tournaments.models import Registration, Round, RoundSeat, RoundTable, Tournament


class RegistrationInline(admin.TabularInline):  # type: ignore[type-arg]
    model = Registration
    extra = 0


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["name", "organiser", "variant", "status", "rounds", "duplicate", "created_at"]
    list_filter = ["status", "variant", "duplicate"]
    inlines = [RegistrationInline]


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["tournament", "number", "seed_hash", "started_at"]


admin.site.register(RoundTable)
admin.site.register(RoundSeat)
