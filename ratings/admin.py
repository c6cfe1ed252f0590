from django.contrib import admin

from ratings.models import BotLadderEntry, BotLadderResult, Rating, RatingChange, TableRatingOption


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ("user", "variant", "value", "matches", "updated_at")
    list_filter = ("variant",)


@admin.register(RatingChange)
class RatingChangeAdmin(admin.ModelAdmin):
    list_display = ("user", "variant", "before", "after", "score", "created_at")
    list_filter = ("variant",)


@admin.register(TableRatingOption)
class TableRatingOptionAdmin(admin.ModelAdmin):
    list_display = ("table", "rated_with_bots")


@admin.register(BotLadderEntry)
class BotLadderEntryAdmin(admin.ModelAdmin):
    list_display = ("user", "variant", "value", "matches", "firsts", "updated_at")
    list_filter = ("variant",)


@admin.register(BotLadderResult)
class BotLadderResultAdmin(admin.ModelAdmin):
    list_display = ("user", "variant", "table", "place", "score", "before", "after", "created_at")
    list_filter = ("variant",)
