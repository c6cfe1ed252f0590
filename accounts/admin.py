"""Admin for profiles, wallets and the ledger.

Units never move through the admin: balances are read-only here and the ledger (and the holds of
running matches) cannot be added to, changed or deleted.  Staff credit or debit a wallet on the
account pages' staff form, which posts a ledger row through ``accounts.services``.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from rest_framework.authtoken.models import TokenProxy

from accounts.models import ApiToken, Hold, HoldChange, LedgerEntry, Profile, Wallet


class ClosedFilter(admin.SimpleListFilter):
    """Closed accounts (accounts/closure.py) or open ones."""

    title = _("closed")
    parameter_name = "closed"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("yes", _("closed")), ("no", _("open"))]

    def queryset(self, request: HttpRequest, queryset: Any) -> Any:
        field = "closed_at__isnull" if queryset.model is Profile else "profile__closed_at__isnull"
        if self.value() in ("yes", "no"):
            return queryset.filter(**{field: self.value() == "no"})
        return queryset


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):
    list_display = ["user", "display_name", "language", "closed_at"]
    list_filter = ["language", ClosedFilter]
    search_fields = ["user__username", "display_name"]
    raw_id_fields = ["user"]


# Django's user admin, with whether each account is closed: a closed account's username is its
# tombstone (closed-<id>), and staff must not mistake it for a player who chose that name.
admin.site.unregister(get_user_model())


@admin.register(get_user_model())
class AccountUserAdmin(UserAdmin):
    list_display = ("username", "email", "first_name", "last_name", "is_staff", "is_active", "closed_at")
    list_filter = ("is_staff", "is_superuser", "is_active", "groups", ClosedFilter)
    list_select_related = ["profile"]

    @admin.display(description=_("closed at"), ordering="profile__closed_at")
    def closed_at(self, user: Any) -> Any:
        profile = getattr(user, "profile", None)
        return profile.closed_at if profile is not None and profile.closed_at else "-"


class ReadOnlyAdmin(admin.ModelAdmin):
    """Money is moved only by the services (the ledger's one write path): the admin shows."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Wallet)
class WalletAdmin(ReadOnlyAdmin):
    # Wallets open with their user (accounts.signals), the system wallet on first use; and
    # saving the form would write back the balance it loaded, racing settlement: view only.
    list_display = ["__str__", "kind", "balance", "updated_at"]
    list_filter = ["kind"]
    search_fields = ["user__username"]
    readonly_fields = fields = ("user", "kind", "balance", "updated_at", "adjust_link")

    @admin.display(description=_("Credit or debit"))
    def adjust_link(self, wallet: Wallet) -> str:
        if not wallet.user_id:
            return "-"
        url = reverse("accounts:staff_adjust", kwargs={"user_id": wallet.user_id})
        return format_html('<a href="{}">{}</a>', url, _("Credit or debit this wallet"))


@admin.register(LedgerEntry)
class LedgerEntryAdmin(ReadOnlyAdmin):
    list_display = ["id", "created_at", "wallet", "amount", "balance_after", "reason", "reference", "created_by"]
    list_filter = ["reason"]
    search_fields = ["reference", "note", "wallet__user__username"]
    list_select_related = ["wallet__user", "created_by"]
    date_hierarchy = "created_at"


@admin.register(Hold)
class HoldAdmin(ReadOnlyAdmin):
    """Read-only: holds are taken and released by the matches (games.services.holds)."""

    list_display = ["id", "created_at", "wallet", "amount", "initial", "reference", "released_at"]
    search_fields = ["reference", "wallet__user__username"]
    list_select_related = ["wallet__user"]


@admin.register(HoldChange)
class HoldChangeAdmin(ReadOnlyAdmin):
    """Read-only: staff release or reduce holds on the wallet's staff page (or the API), with a reason."""

    list_display = ["id", "created_at", "hold", "before", "after", "released", "created_by"]
    search_fields = ["hold__reference", "hold__wallet__user__username", "reason"]
    list_select_related = ["hold", "created_by"]


@admin.register(ApiToken)
class ApiTokenAdmin(ReadOnlyAdmin):
    """Read-only: a key is made and revoked by its owner on the profile page; only its digest is stored."""

    list_display = ["id", "user", "prefix", "created_at", "last_used_at"]
    search_fields = ["user__username", "prefix"]
    list_select_related = ["user"]
    exclude = ["digest"]


# DRF's token admin would make keys in clear, which no longer authenticate: not offered.  Its
# module is imported first, so it has registered whatever the apps' order.
import rest_framework.authtoken.admin  # noqa: E402, F401

if admin.site.is_registered(TokenProxy):
    admin.site.unregister(TokenProxy)
