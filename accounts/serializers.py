"""REST shapes of the account, its ledger and staff adjustments."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from accounts.models import Hold, LedgerEntry, Profile
from core.serializers import StrictJSONTypes


class AccountSerializer(StrictJSONTypes, serializers.ModelSerializer):
    username = serializers.CharField(source="user.get_username", read_only=True)
    # Text, not EmailField: "" (no address) is a valid answer, which an email format would not be.
    email = serializers.CharField(
        source="user.email",
        read_only=True,
        help_text=_("The account's email address (password resets go to it); empty when it has none. Only you see it."),
    )
    email_pending = serializers.CharField(
        source="pending_email",
        read_only=True,
        help_text=_("An address waiting for you to follow the link mailed to it; empty when none."),
    )
    balance = serializers.SerializerMethodField()
    held = serializers.SerializerMethodField(
        help_text=_("Units of the balance held for running matches (each match holds its stake until it ends).")
    )
    available = serializers.SerializerMethodField(
        help_text=_("What the balance can still commit to a new table: the balance less what is held.")
    )

    class Meta:
        model = Profile
        fields = ["username", "email", "email_pending", "display_name", "language", "balance", "held", "available"]

    def get_balance(self, profile: Profile) -> int:
        return int(profile.user.wallet.balance)

    def get_held(self, profile: Profile) -> int:
        return profile.user.wallet.held

    def get_available(self, profile: Profile) -> int:
        return profile.user.wallet.available


class LedgerEntrySerializer(serializers.ModelSerializer):
    reason_label = serializers.CharField(source="get_reason_display", read_only=True)

    class Meta:
        model = LedgerEntry
        fields = ["id", "amount", "balance_after", "reason", "reason_label", "reference", "note", "created_at"]
        read_only_fields = fields


class AdjustSerializer(StrictJSONTypes, serializers.Serializer):
    amount = serializers.IntegerField(
        help_text=_("Units: positive credits the wallet (staff_credit), negative debits it (staff_debit)."),
        min_value=-(10**12),
        max_value=10**12,
    )
    note = serializers.CharField(
        max_length=500, help_text=_("The written reason, kept in the ledger row."), trim_whitespace=True
    )

    def validate_amount(self, value: int) -> int:
        if value == 0:
            raise serializers.ValidationError(_("The amount cannot be zero."))
        return value

    def to_representation(self, instance: Any) -> Any:
        return LedgerEntrySerializer(instance, context=self.context).data


class EmailChangeSerializer(StrictJSONTypes, serializers.Serializer):
    email = serializers.EmailField(
        allow_blank=True,
        max_length=254,
        help_text=_("The new address (a link to confirm it is mailed to it), or empty to remove the address."),
    )
    password = serializers.CharField(
        max_length=4096, trim_whitespace=False, help_text=_("The account's current password.")
    )


class HoldSerializer(serializers.ModelSerializer):
    class Meta:
        model = Hold
        fields = ["id", "reference", "amount", "initial", "note", "created_at", "released_at"]
        read_only_fields = fields


class HoldChangeSerializer(StrictJSONTypes, serializers.Serializer):
    amount = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=0,
        max_value=10**12,
        help_text=_("The units the match keeps held (less than held now); null or absent releases the whole hold."),
    )
    note = serializers.CharField(
        max_length=500, help_text=_("The written reason, kept with the change."), trim_whitespace=True
    )
