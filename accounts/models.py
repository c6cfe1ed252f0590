"""Profiles, wallets and the append-only ledger.

A wallet's ``balance`` is a cache of the sum of its ledger entries, kept in the
same transaction as every entry (see ``accounts.services``); a database
constraint keeps it from ever going negative.  Ledger rows are never edited:
a correction is a new row.

A ``Hold`` commits part of a balance to one running match: the balance backs only
the holds it covers, so what a player may still commit elsewhere is the balance
minus their active holds (docs/operations.md, "Holds").
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class Profile(models.Model):
    LANGUAGES = [("zh-hans", "简体中文"), ("en", "English")]

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile", verbose_name=_("user")
    )
    display_name = models.CharField(_("display name"), max_length=40, blank=True)
    language = models.CharField(_("language"), max_length=8, choices=LANGUAGES, default="zh-hans")
    # False until the user picks a language (signing up, the header's switch, the profile form):
    # an account made elsewhere (the demo, the admin) then takes the language the visitor was
    # using at its first sign-in instead of flipping them to the default.
    language_chosen = models.BooleanField(_("language chosen"), default=False)
    # The address the player asked for, until they follow the link mailed to it; only then does
    # it become the account's address (user.email, which password resets use).
    pending_email = models.EmailField(_("email address awaiting confirmation"), blank=True, default="")
    # Set when the player closed the account (accounts/closure.py): the username is a tombstone,
    # personal data is erased, the ledger rows stay.
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)

    class Meta:
        verbose_name = _("profile")
        verbose_name_plural = _("profiles")

    def __str__(self) -> str:
        return self.display_name or self.user.get_username()

    @property
    def name(self) -> str:
        return self.display_name or self.user.get_username()


class Wallet(models.Model):
    """Integer units.  ``user`` is empty only for the system account (escape penalties)."""

    KIND_PLAYER, KIND_SYSTEM = "player", "system"
    KINDS = [(KIND_PLAYER, _("player")), (KIND_SYSTEM, _("system"))]

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="wallet",
        null=True,
        blank=True,
        verbose_name=_("user"),
    )
    kind = models.CharField(_("kind"), max_length=8, choices=KINDS, default=KIND_PLAYER)
    balance = models.BigIntegerField(_("balance"), default=0)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("wallet")
        verbose_name_plural = _("wallets")
        constraints = [
            models.CheckConstraint(condition=Q(balance__gte=0), name="wallet_balance_never_negative"),
            models.UniqueConstraint(fields=["kind"], condition=Q(kind="system"), name="one_system_wallet"),
        ]

    def __str__(self) -> str:
        return f"wallet of {self.user}" if self.user_id else "system wallet"

    def active_holds(self) -> models.QuerySet[Hold]:
        return self.holds.filter(released_at__isnull=True).order_by("pk")

    @property
    def held(self) -> int:
        """Units committed to running matches (one query: a page or an API read, not a hot path)."""
        return int(self.active_holds().aggregate(total=models.Sum("amount"))["total"] or 0)

    @property
    def available(self) -> int:
        """What this balance can still commit: the balance minus its active holds (never below 0:
        a staff debit may take a balance under its holds; settlement then caps, see services.settle)."""
        return max(0, self.balance - self.held)


class LedgerEntry(models.Model):
    """One movement of units.  Append-only: the admin shows it read-only, code never updates it."""

    GRANT = "grant"
    HAND = "hand"
    STAFF_CREDIT = "staff_credit"
    STAFF_DEBIT = "staff_debit"
    ESCAPE_PENALTY = "escape_penalty"
    REASONS = [
        (GRANT, _("starting grant")),
        (HAND, _("hand settlement")),
        (STAFF_CREDIT, _("staff credit")),
        (STAFF_DEBIT, _("staff debit")),
        (ESCAPE_PENALTY, _("escape penalty")),
    ]

    wallet = models.ForeignKey(Wallet, on_delete=models.PROTECT, related_name="entries", verbose_name=_("wallet"))
    amount = models.BigIntegerField(_("amount"))  # signed: + credit, - debit
    balance_after = models.BigIntegerField(_("balance after"))
    reason = models.CharField(_("reason"), max_length=16, choices=REASONS)
    # What the movement is for, e.g. "hand:42"; one entry per wallet and reference keeps
    # settlement idempotent even if it runs twice.
    reference = models.CharField(_("reference"), max_length=64, blank=True, default="")
    note = models.TextField(_("note"), blank=True, default="")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("time"), auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        verbose_name = _("ledger entry")
        verbose_name_plural = _("ledger entries")
        constraints = [
            models.UniqueConstraint(
                fields=["wallet", "reference"], condition=~Q(reference=""), name="one_entry_per_wallet_reference"
            ),
        ]
        indexes = [models.Index(fields=["reference"])]

    def __str__(self) -> str:
        return f"{self.amount:+d} {self.reason} {self.reference}".strip()


class Hold(models.Model):
    """Units of a wallet committed to one running match, released when the match ends.

    ``amount`` is what the match may still take: the match's losses are paid from its hold first
    and shrink it, so the wallet's active holds never add up to more than its balance.  Only
    ``accounts.services`` writes holds, always under the wallet's row lock.
    """

    wallet = models.ForeignKey(Wallet, on_delete=models.PROTECT, related_name="holds", verbose_name=_("wallet"))
    # What holds the units, e.g. "table:42" (accounts knows nothing of tables).
    reference = models.CharField(_("reference"), max_length=64)
    amount = models.BigIntegerField(_("held"))
    initial = models.BigIntegerField(_("held at start"))
    note = models.CharField(_("note"), max_length=200, blank=True, default="")
    created_at = models.DateTimeField(_("time"), auto_now_add=True)
    released_at = models.DateTimeField(_("released at"), null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        verbose_name = _("hold")
        verbose_name_plural = _("holds")
        constraints = [
            models.CheckConstraint(
                condition=Q(amount__gte=0) & Q(amount__lte=models.F("initial")), name="hold_amount_within_initial"
            ),
            models.UniqueConstraint(
                fields=["wallet", "reference"],
                condition=Q(released_at__isnull=True),
                name="one_active_hold_per_reference",
            ),
        ]
        indexes = [models.Index(fields=["reference", "released_at"])]

    def __str__(self) -> str:
        state = "released" if self.released_at else "active"
        return f"hold {self.amount} {self.reference} ({state})"


class HoldChange(models.Model):
    """A staff member's release or reduction of a hold, with the written reason: the record of
    the one way a staff debit may reach units a running match holds (accounts.services.change_hold)."""

    hold = models.ForeignKey(Hold, on_delete=models.PROTECT, related_name="changes", verbose_name=_("hold"))
    before = models.BigIntegerField(_("held before"))
    after = models.BigIntegerField(_("held after"))  # 0 with released: the hold was released
    released = models.BooleanField(_("released"), default=False)
    reason = models.TextField(_("reason"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("created by")
    )
    created_at = models.DateTimeField(_("time"), auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        verbose_name = _("hold change")
        verbose_name_plural = _("hold changes")

    def __str__(self) -> str:
        return f"{self.hold.reference}: {self.before} -> {self.after}"


class ApiToken(models.Model):
    """An account's API key for scripts and bots, stored as its SHA-256 digest (accounts.api_tokens).

    The key itself is shown once, on the page that made it: a copy of the database then holds no
    working credential.  ``prefix`` (the key's first characters, not secret) tells keys apart on
    the profile page.  One key per account; a password change revokes it.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_token", verbose_name=_("user")
    )
    prefix = models.CharField(_("prefix"), max_length=16)
    digest = models.CharField(_("digest"), max_length=64, unique=True)  # hex SHA-256 of the key
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True)

    class Meta:
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user_id})"
