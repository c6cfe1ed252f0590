"""Tables, seats, hands and the append-only event log of the live platform.

The running hand's row holds the authoritative engine snapshot and ``seq``; the
only code that writes it is ``games.services`` (one writer per table, spec/DESIGN.md §4).

Seats: ``Seat.position`` is the physical chair 0..3 for the whole match.  Within a
hand the engine names seats by wind with East the dealer, so the engine seat of
chair ``p`` is ``(p - hand.dealer_position) % 4``.
"""

from __future__ import annotations

import secrets
import string

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

ROOM_CODE_ALPHABET = string.ascii_uppercase.replace("O", "").replace("I", "") + "23456789"


def new_room_code() -> str:
    return "".join(secrets.choice(ROOM_CODE_ALPHABET) for _ in range(6))


class Table(models.Model):
    WAITING, PLAYING, FINISHED, ABORTED = "waiting", "playing", "finished", "aborted"
    STATUSES = [(WAITING, "waiting"), (PLAYING, "playing"), (FINISHED, "finished"), (ABORTED, "aborted")]

    variant = models.CharField(max_length=32)
    options = models.JSONField(default=dict)  # validated by the variant's schema; includes "base"
    stake = models.PositiveIntegerField(default=1)  # wallet units per base point (底分/底注)
    hands_total = models.PositiveSmallIntegerField(default=4)
    turn_seconds = models.PositiveSmallIntegerField(default=20)
    claim_seconds = models.PositiveSmallIntegerField(default=8)
    is_private = models.BooleanField(default=False)
    # 听牌 hints for the seated players (games/wire/hints.py).  Off for tournament tables, and a
    # table with hints is never rated (ratings.services.is_rated).
    hints = models.BooleanField(default=False)
    room_code = models.CharField(max_length=8, unique=True, default=new_room_code)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="owned_tables")
    status = models.CharField(max_length=10, choices=STATUSES, default=WAITING)
    created_at = models.DateTimeField(auto_now_add=True)
    # Match state between hands.
    dealer_position = models.PositiveSmallIntegerField(default=0)
    hands_played = models.PositiveSmallIntegerField(default=0)
    context = models.JSONField(default=dict)  # the variant's pre-hand state for the next hand
    # The table's own clock: the fourth seat's ready countdown, or the pre-hand question's deadline.
    ready_deadline = models.DateTimeField(null=True, blank=True)
    # The pre-hand questions of the next hand (买底/顶底, 飘) while they are being answered:
    # {"questions": [PreHandQuestion...], "index": current, "answers": {chair: answer}}.
    pre_hand = models.JSONField(null=True, blank=True)
    # chair -> wallet units won or lost over the table's settled hands; kept by settlement
    # (games.services.settle_hand) so that every step's frames need not add up the hands again.
    scores = models.JSONField(default=dict, blank=True)
    # How long the table waits for a seated person who is not connected before 托管 takes their
    # turns (games.services.grace); 0, the default, is the ordinary clock.  Tournaments set it.
    offline_grace_seconds = models.PositiveSmallIntegerField(default=0)
    # Made by quick play (games.services.lobby.quick_play): public, the rule set's defaults, its
    # people ready as they sit; ``ready_deadline`` is when bots take the empty chairs.
    quick_play = models.BooleanField(default=False)
    # Bumped by the database on every UPDATE of the row (a trigger: migration 0016), whoever writes
    # it; a process that keeps the row in memory between steps checks it to know the row is as it
    # left it (games.runtime.live_rows).  Never set it: the trigger overwrites what is written.
    revision = models.BigIntegerField(default=0, editable=False)

    class Meta:
        indexes = [models.Index(fields=["status", "is_private"])]

    def __str__(self) -> str:
        return f"table {self.pk} ({self.variant})"


class Seat(models.Model):
    # A bot seat's level (games.engine: easy = the greedy bot, strong = the strong bot), chosen by
    # the table's owner when filling chairs; 托管 and an absent player's turns always play strong.
    EASY, STRONG = "easy", "strong"
    BOT_LEVELS = [(EASY, _("easy")), (STRONG, _("strong"))]

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField()  # physical chair 0..3; 0 deals the first hand
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True)
    is_bot = models.BooleanField(default=False)
    bot_level = models.CharField(max_length=6, choices=BOT_LEVELS, default=STRONG)
    ready = models.BooleanField(default=False)
    joined_at = models.DateTimeField(auto_now_add=True)
    # Absence handling (spec/DESIGN.md §4): 托管 means a bot plays the seat until its player acts again.
    auto_play = models.BooleanField(default=False)
    timeouts = models.PositiveSmallIntegerField(default=0)  # consecutive timeouts
    disconnects = models.PositiveSmallIntegerField(default=0)  # in this match
    connected = models.BooleanField(default=False)
    connections = models.PositiveSmallIntegerField(default=0)  # open sockets of the seated player
    left = models.BooleanField(default=False)  # walked out of a running match
    # Since when the seat's player has been away (the last socket closed, or the match started
    # without them): the start of the table's offline grace (games.services.grace).
    offline_since = models.DateTimeField(null=True, blank=True)
    # Bumped by the database on every UPDATE of the row (a trigger: migration 0016), whoever writes
    # it; a process that keeps the row in memory between steps checks it to know the row is as it
    # left it (games.runtime.live_rows).  Never set it: the trigger overwrites what is written.
    revision = models.BigIntegerField(default=0, editable=False)

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["table", "position"], name="one_seat_per_position"),
            models.UniqueConstraint(
                fields=["table", "user"], condition=Q(user__isnull=False), name="one_seat_per_user"
            ),
        ]

    @property
    def occupied(self) -> bool:
        return self.is_bot or self.user_id is not None


class Hand(models.Model):
    PLAYING, FINISHED = "playing", "finished"

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="hands")
    number = models.PositiveSmallIntegerField()  # 1-based within the match
    dealer_position = models.PositiveSmallIntegerField()
    seed = models.CharField(max_length=64)  # secret until the hand ends; never sent before
    seed_hash = models.CharField(max_length=64)
    # The engine's Hand.to_json() at ``snapshot_seq``: the hand at ``seq`` is this snapshot with
    # the logged actions of the steps after it applied (games/records/rebuild.py).  Written at the
    # deal, every CAISHEN_SNAPSHOT_EVERY steps and at the hand's end, so a step appends its actions
    # instead of rewriting the whole hand.
    snapshot = models.JSONField()
    snapshot_seq = models.PositiveIntegerField(default=0)
    seq = models.PositiveIntegerField(default=0)  # bumped by every applied command
    deadline_at = models.DateTimeField(null=True, blank=True)  # when the current decision times out
    window_opened_at = models.DateTimeField(null=True, blank=True)  # the open claim window's start
    # Answers to a protected claim window, kept off the engine until the window closes (engine
    # seat -> action): nothing that anyone else sees changes when a seat answers (services.play).
    window_answers = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=10, default=PLAYING)
    result = models.JSONField(null=True, blank=True)
    deltas = models.JSONField(null=True, blank=True)  # chair -> wallet units actually settled
    prepaid = models.JSONField(null=True, blank=True)  # chair -> points settled early (a leaver's 杠分)
    settled = models.BooleanField(default=False)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Bumped by the database on every UPDATE of the row (a trigger: migration 0016), whoever writes
    # it; a process that keeps the row in memory between steps checks it to know the row is as it
    # left it (games.runtime.live_rows).  Never set it: the trigger overwrites what is written.
    revision = models.BigIntegerField(default=0, editable=False)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["table", "number"], name="one_hand_number_per_table")]
        indexes = [models.Index(fields=["status", "deadline_at"])]

    def engine_seat(self, position: int) -> int:
        return (position - self.dealer_position) % 4

    def position_of(self, engine_seat: int) -> int:
        return (engine_seat + self.dealer_position) % 4


class HandEvent(models.Model):
    """The event log of hands recorded before events were derived: one row per engine event, in
    order; ``seq`` is the command that made it.  No step writes it now: a hand's events are
    derived from its actions (games/records/rebuild.py, ``event_log``), which reads these rows
    for the hands that have them."""

    hand = models.ForeignKey(Hand, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    index = models.PositiveSmallIntegerField()  # order within the command
    kind = models.CharField(max_length=24)
    event = models.JSONField()  # Event.to_json(): public data and the owner's private data
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["seq", "index"]
        constraints = [models.UniqueConstraint(fields=["hand", "seq", "index"], name="one_event_per_slot")]


class HandAction(models.Model):
    """Append-only log of the actions applied to a hand (replays, games/records/replay.py).

    What was *done*: one row per ``Hand.apply`` call, in order, with how many events it produced.
    With the hand's last snapshot it is the running hand's state (the hand at ``seq`` is its
    snapshot with the actions after ``Hand.snapshot_seq`` applied again), and with its dealt
    snapshot (``HandStart``) its event log: games/records/rebuild.py.  Written by
    ``services.HandStep``, one statement per step; the unique (hand, seq, index) refuses a second
    writer of the same step.
    """

    # No index of its own: the unique (hand, seq, index) below leads with the hand and serves every
    # lookup by hand; a second index only cost each step's INSERT another b-tree page.
    hand = models.ForeignKey(Hand, on_delete=models.CASCADE, related_name="actions", db_index=False)
    seq = models.PositiveIntegerField()  # the command that applied it (as HandEvent.seq)
    index = models.PositiveSmallIntegerField()  # order within the command
    action = models.JSONField()  # Action.to_json(): seat wind, verb, tiles in notation
    event_count = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)  # spectators' delayed view replays up to a time

    class Meta:
        ordering = ["seq", "index"]
        constraints = [models.UniqueConstraint(fields=["hand", "seq", "index"], name="one_action_per_slot")]


class HandStart(models.Model):
    """The engine snapshot of a hand as dealt, before any action: a replay's starting point.

    Needed for prepared (rigged) hands that have no seed; for seeded hands it lets an export
    check that the seed re-derives the very same wall.
    """

    hand = models.OneToOneField(Hand, on_delete=models.CASCADE, related_name="start")
    snapshot = models.JSONField()


class PlayerTableSettings(models.Model):
    """One account's table-page settings, remembered across browsers.

    All off by default but ``sound`` (a table without its sounds feels dead; one tap on the table
    page mutes it).  ``auto_pass_claims``, ``auto_win`` and ``tsumogiri`` are acted on by the
    server (games.services.presets) so that they work under lag and keep claim protection's uniform
    pause; ``sound``, ``confirm_discard`` and ``one_tap_discard`` are read by the table page.
    """

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="table_settings")
    sound = models.BooleanField(default=True)
    auto_pass_claims = models.BooleanField(default=False)
    auto_win = models.BooleanField(default=False)
    tsumogiri = models.BooleanField(default=False)  # 摸切: discard the drawn tile when nothing else is offered
    confirm_discard = models.BooleanField(default=False)
    one_tap_discard = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)

    FIELDS = ("sound", "auto_pass_claims", "auto_win", "tsumogiri", "confirm_discard", "one_tap_discard")

    def __str__(self) -> str:
        return f"table settings of user {self.user_id}"

    def as_dict(self) -> dict[str, bool]:
        return {name: bool(getattr(self, name)) for name in self.FIELDS}
