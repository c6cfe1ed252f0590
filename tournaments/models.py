"""Tournaments: an organiser's event, its registrations, rounds and the tables of each round.

Tables are ordinary ``games.Table`` rows played through ``games.services``; a round only
records which table each player sat at.  Standings are computed from the finished hands
(``tournaments.services.standings``), never stored, so they cannot drift from the hands.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Tournament(models.Model):
    DRAFT, REGISTRATION, CLOSED, RUNNING, FINISHED = "draft", "registration", "closed", "running", "finished"
    STATUSES = [(s, s) for s in (DRAFT, REGISTRATION, CLOSED, RUNNING, FINISHED)]
    RANDOM, BY_STANDINGS = "random", "standings"
    SEATINGS = [(RANDOM, _("random")), (BY_STANDINGS, _("by standings after the first round"))]
    BOTS, BYES = "bots", "byes"
    FILLS = [(BOTS, _("bots fill the last table")), (BYES, _("the players left over sit out (bye)"))]

    name = models.CharField(max_length=100)
    organiser = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="organised")
    variant = models.CharField(max_length=32)
    options = models.JSONField(default=dict)
    stake = models.PositiveIntegerField(default=0)  # wallet units per point; 0 = score only
    rounds = models.PositiveSmallIntegerField(default=2)
    hands_per_round = models.PositiveSmallIntegerField(default=4)
    turn_seconds = models.PositiveSmallIntegerField(default=20)
    claim_seconds = models.PositiveSmallIntegerField(default=8)
    seating = models.CharField(max_length=10, choices=SEATINGS, default=RANDOM)
    fill = models.CharField(max_length=5, choices=FILLS, default=BOTS)
    duplicate = models.BooleanField(default=False)  # every table of a round plays the same walls
    max_players = models.PositiveSmallIntegerField(default=16)
    # Check-in: with it on, a round seats only the registered players who checked in during its
    # window (which opens ``check_in_minutes`` before ``next_round_at``, or when the organiser
    # opens it by hand); the others are absentees, handled by ``absentees``.
    WAITING_LIST, BYE, BOT = "waiting", "bye", "bot"
    ABSENTEE_RULES = [
        (WAITING_LIST, _("replaced by the first checked-in player of the waiting list")),
        (BYE, _("a bye")),
        (BOT, _("a bot plays the chair")),
    ]
    check_in = models.BooleanField(default=False)
    check_in_minutes = models.PositiveSmallIntegerField(default=10)
    absentees = models.CharField(max_length=8, choices=ABSENTEE_RULES, default=WAITING_LIST)
    next_round_at = models.DateTimeField(null=True, blank=True)  # the organiser's announced start
    check_in_opened_for = models.PositiveSmallIntegerField(null=True, blank=True)  # round opened by hand
    # How long a table waits for a seated player who is not connected before auto-play (托管)
    # takes their turns (games.services.grace); 0: the ordinary turn clock.
    offline_grace_seconds = models.PositiveSmallIntegerField(default=120)
    status = models.CharField(max_length=12, choices=STATUSES, default=DRAFT)
    published = models.BooleanField(default=False)  # standings public
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return self.name


class Registration(models.Model):
    REGISTERED, WAITING, WITHDRAWN = "registered", "waiting", "withdrawn"
    STATUSES = [(s, s) for s in (REGISTERED, WAITING, WITHDRAWN)]

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="registrations")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="registrations")
    status = models.CharField(max_length=10, choices=STATUSES, default=REGISTERED)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "pk"]
        constraints = [models.UniqueConstraint(fields=["tournament", "user"], name="one_registration_per_user")]


class Round(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="round_set")
    number = models.PositiveSmallIntegerField()
    # Commit–reveal: the hash is public from the start, the seed once the round is over.
    # In duplicate mode every table's walls derive from it; it also draws random seatings.
    seed = models.CharField(max_length=64)
    seed_hash = models.CharField(max_length=64)
    started_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["number"]
        constraints = [models.UniqueConstraint(fields=["tournament", "number"], name="one_round_number")]


class RoundTable(models.Model):
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveSmallIntegerField()  # table 1, 2, ... of the round
    table = models.OneToOneField("games.Table", on_delete=models.PROTECT, related_name="tournament_table")

    class Meta:
        ordering = ["number"]


class RoundSeat(models.Model):
    """Who sat where in a round: a player at a chair, a bot (no user), or a bye (no table)."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="seats")
    round_table = models.ForeignKey(RoundTable, on_delete=models.CASCADE, null=True, blank=True, related_name="seats")
    position = models.PositiveSmallIntegerField(null=True, blank=True)  # chair 0..3
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True)
    absent = models.BooleanField(default=False)  # registered, did not check in: not seated

    class Meta:
        ordering = ["round_table__number", "position"]


class CheckIn(models.Model):
    """A player present for round ``round_number`` (checked in during its window)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="check_ins")
    round_number = models.PositiveSmallIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "round_number", "user"], name="one_check_in_per_round")
        ]


class EventLog(models.Model):
    """What happened on the evening, for the organiser and afterwards: every organiser action
    and every absentee handled, in order."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="log")
    at = models.DateTimeField(auto_now_add=True)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True)
    action = models.CharField(max_length=32)
    detail = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["at", "pk"]


class Replacement(models.Model):
    """An organiser's replacement of a seated player during a round: the chair goes to
    ``replacement`` (None: a bot) at the table's next hand boundary (``applied_at`` set then),
    never in the middle of a hand."""

    round_table = models.ForeignKey(RoundTable, on_delete=models.CASCADE, related_name="replacements")
    position = models.PositiveSmallIntegerField()  # chair 0..3
    replaced = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    replacement = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    applied_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "pk"]
