"""REST shapes of the account, its ledger and staff adjustments."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from accounts.models import LedgerEntry, Profile
from mahjong_platform.serializers import StrictJSONTypes


class AccountSerializer(StrictJSONTypes, serializers.ModelSerializer):
    username = serializers.CharField(source="user.get_username", read_only=True)
    balance = serializers.SerializerMethodField()

    class Meta:
        model = Profile
        fields = ["username", "display_name", "language", "balance"]

    def get_balance(self, profile: Profile) -> int:
        return int(profile.user.wallet.balance)


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
