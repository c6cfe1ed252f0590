"""Profiles, wallets and the append-only ledger.

A wallet's ``balance`` is a cache of the sum of its ledger entries, kept in the
same transaction as every entry (see ``accounts.services``); a database
constraint keeps it from ever going negative.  Ledger rows are never edited:
a correction is a new row.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class Profile(models.Model):
    LANGUAGES = [("zh-hans", "简体中文"), ("en", "English")]

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile")
    display_name = models.CharField(max_length=40, blank=True)
    language = models.CharField(max_length=8, choices=LANGUAGES, default="zh-hans")

    def __str__(self) -> str:
        return self.display_name or self.user.get_username()

    @property
    def name(self) -> str:
        return self.display_name or self.user.get_username()


class Wallet(models.Model):
    """Integer units.  ``user`` is empty only for the system account (escape penalties)."""

    KIND_PLAYER, KIND_SYSTEM = "player", "system"
    KINDS = [(KIND_PLAYER, "player"), (KIND_SYSTEM, "system")]

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="wallet", null=True, blank=True
    )
    kind = models.CharField(max_length=8, choices=KINDS, default=KIND_PLAYER)
    balance = models.BigIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(balance__gte=0), name="wallet_balance_never_negative"),
            models.UniqueConstraint(fields=["kind"], condition=Q(kind="system"), name="one_system_wallet"),
        ]

    def __str__(self) -> str:
        return f"wallet of {self.user}" if self.user_id else "system wallet"


class LedgerEntry(models.Model):
    """One movement of units.  Append-only: the admin shows it read-only, code never updates it."""

    GRANT = "grant"
    HAND = "hand"
    STAFF_CREDIT = "staff_credit"
    STAFF_DEBIT = "staff_debit"
    ESCAPE_PENALTY = "escape_penalty"
    REASONS = [
        (GRANT, "starting grant"),
        (HAND, "hand settlement"),
        (STAFF_CREDIT, "staff credit"),
        (STAFF_DEBIT, "staff debit"),
        (ESCAPE_PENALTY, "escape penalty"),
    ]

    wallet = models.ForeignKey(Wallet, on_delete=models.PROTECT, related_name="entries")
    amount = models.BigIntegerField()  # signed: + credit, - debit
    balance_after = models.BigIntegerField()
    reason = models.CharField(max_length=16, choices=REASONS)
    # What the movement is for, e.g. "hand:42"; one entry per wallet and reference keeps
    # settlement idempotent even if it runs twice.
    reference = models.CharField(max_length=64, blank=True, default="")
    note = models.TextField(blank=True, default="")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["wallet", "reference"], condition=~Q(reference=""), name="one_entry_per_wallet_reference"
            ),
        ]
        indexes = [models.Index(fields=["reference"])]

    def __str__(self) -> str:
        return f"{self.amount:+d} {self.reason} {self.reference}".strip()
