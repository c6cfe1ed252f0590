"""Ratings per player and rule set, the history of their changes, and a table's rating option.

``Rating`` is the current value; ``RatingChange`` is one row per player per rated match (the
history graph's points, and the idempotence of an update: a match is rated at most once, see
``RatedMatch``).  Statistics are not stored: they are computed from the finished hands
(ratings/stats.py), so they cannot drift from them.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from ratings.elo import INITIAL


class Rating(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings")
    variant = models.CharField(max_length=32)
    value = models.FloatField(default=INITIAL)
    matches = models.PositiveIntegerField(default=0)  # rated matches played in this rule set
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "variant"], name="one_rating_per_rule_set")]
        indexes = [models.Index(fields=["variant", "-value"])]

    def __str__(self) -> str:
        return f"{self.user_id} {self.variant} {self.value:.0f}"


class RatedMatch(models.Model):
    """A match whose ratings were updated: written in the settlement of its last hand, so a
    second settlement (the scaled mode's sweeper, a retried task) finds it and changes nothing."""

    table = models.OneToOneField("games.Table", on_delete=models.CASCADE, related_name="rated_match")
    variant = models.CharField(max_length=32)
    created_at = models.DateTimeField(auto_now_add=True)


class RatingChange(models.Model):
    match = models.ForeignKey(RatedMatch, on_delete=models.CASCADE, related_name="changes")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes")
    variant = models.CharField(max_length=32)
    before = models.FloatField()
    after = models.FloatField()
    score = models.IntegerField()  # the player's final match score (the table's scores)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "pk"]
        constraints = [models.UniqueConstraint(fields=["match", "user"], name="one_change_per_match_player")]
        indexes = [models.Index(fields=["user", "variant", "created_at"])]


class TableRatingOption(models.Model):
    """A table's choice to be rated although bots sit at it (``rated_with_bots``; default: not).
    A row only for the tables that chose so; no row is the default."""

    table = models.OneToOneField("games.Table", on_delete=models.CASCADE, related_name="rating_option")
    rated_with_bots = models.BooleanField(default=False)


class DeferredRating(models.Model):
    """A finished match whose rating waits: a deal it played is still being played elsewhere
    (a duplicate tournament round), and an Elo change now would tell the other tables how it
    went.  Rated, and the row removed, once every hand of the match is disclosed
    (``ratings.services.rate_deferred``)."""

    table = models.OneToOneField("games.Table", on_delete=models.CASCADE, related_name="deferred_rating")
    created_at = models.DateTimeField(auto_now_add=True)


class BotLadderEntry(models.Model):
    """A player's place on a rule set's "vs bots" ladder: their matches against bots, kept apart
    from the people's ``Rating`` (ratings/bot_ladder.py).  ``value`` is an Elo rating against
    bots that play at a fixed rating; ``firsts`` counts the matches finished with the best score."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="bot_ladder")
    variant = models.CharField(max_length=32)
    value = models.FloatField(default=INITIAL)
    matches = models.PositiveIntegerField(default=0)
    firsts = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "variant"], name="one_bot_ladder_entry_per_rule_set")]
        indexes = [models.Index(fields=["variant", "-value"])]


class BotLadderResult(models.Model):
    """One player's finished match against bots: the ladder's history, and the idempotence of
    its update (one row per table and player: a second settlement finds it and adds nothing)."""

    table = models.ForeignKey("games.Table", on_delete=models.CASCADE, related_name="bot_ladder_results")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="bot_ladder_results")
    variant = models.CharField(max_length=32)
    before = models.FloatField()
    after = models.FloatField()
    place = models.PositiveSmallIntegerField()  # 1 = the best final score (ties share a place)
    score = models.IntegerField()  # the player's final match score (the table's scores)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "pk"]
        constraints = [models.UniqueConstraint(fields=["table", "user"], name="one_bot_ladder_result_per_match")]
        indexes = [models.Index(fields=["user", "variant", "created_at"])]
