"""The account API: /api/account/, its ledger (JSON pages or CSV) and staff adjustments."""

from __future__ import annotations

import io
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import generics, permissions, status
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import BasePagination, PageNumberPagination
from rest_framework.renderers import BaseRenderer, BrowsableAPIRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import email_address, ledger_export, mail_limits, second_factor, services
from accounts.forms import EmailChangeForm
from accounts.language import remember_language
from accounts.models import Hold, LedgerEntry, Profile
from accounts.serializers import (
    AccountSerializer,
    AdjustSerializer,
    EmailChangeSerializer,
    HoldChangeSerializer,
    HoldSerializer,
    LedgerEntrySerializer,
)
from accounts.views import held_message
from core.spreadsheet_cells import SafeWriter


class CSVRenderer(BaseRenderer):
    """The ledger as CSV (``?format=csv`` or ``ledger.csv``): the same columns as the account page's export."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None) -> bytes:
        if not isinstance(data, list):  # an error body: one "detail" column
            data = [] if data is None else [data]
            out = io.StringIO()
            writer = SafeWriter(out)
            writer.writerow(["detail"])
            for item in data:
                writer.writerow([item.get("detail", item) if isinstance(item, dict) else item])
            return out.getvalue().encode()
        return "".join(ledger_export.lines(data)).encode()


class LedgerPagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500

    def get_page_size(self, request: Request) -> int | None:
        # DRF ignores a malformed page_size and answers the default page, which hides the client's
        # mistake (schemathesis sent page_size=null and got 50 rows): it is a 400 here.  Larger
        # than max_page_size is still capped, as the parameter's description says.
        raw = request.query_params.get(self.page_size_query_param)
        if raw is not None and not (raw.isascii() and raw.isdigit() and int(raw) >= 1):
            raise ValidationError(
                {"detail": f"page_size must be a whole number from 1 (at most {self.max_page_size} are sent)"}
            )
        return super().get_page_size(request)

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] in (self.page_size_query_param, self.page_query_param):
                parameter["schema"] = {**parameter["schema"], "minimum": 1}
        return parameters


@extend_schema_view(
    get=extend_schema(summary="The signed-in account", tags=["account"]),
    patch=extend_schema(summary="Change display name or language", tags=["account"]),
)
class AccountView(generics.RetrieveUpdateAPIView):
    """Username, email address (and one waiting for confirmation), display name, language (zh-hans
    or en) and wallet balance of the signed-in user, with the part of the balance held for running
    matches (``held``) and the rest (``available``).

    PATCH changes the display name and the language; a new language also sets the language cookie.
    """

    serializer_class = AccountSerializer
    http_method_names = ["get", "patch", "head", "options"]

    def get_object(self) -> Profile:
        services.open_account(self.request.user)
        return Profile.objects.select_related("user__wallet").get(user=self.request.user)

    def partial_update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        # A PATCH that names no changeable field changed nothing and answered 200 as if it had: an
        # empty form, `[]` sent as multipart, a misspelt key (schemathesis sent such bodies).
        changeable = {"display_name", "language"}
        if not hasattr(request.data, "keys") or not changeable & set(request.data.keys()):
            raise ValidationError({"detail": _("Nothing to change: send display_name and/or language.")})
        response = super().partial_update(request, *args, **kwargs)
        if "language" in request.data:
            remember_language(response, response.data["language"])
        return response


def _account(request: Request) -> Response:
    profile = Profile.objects.select_related("user__wallet").get(user=request.user)
    return Response(AccountSerializer(profile).data)


@extend_schema(
    summary="Change or remove the account's email address",
    description="With the current password. A new address is not used until the link mailed to it is "
    "followed (it shows as `email_pending` meanwhile); an empty `email` removes the address at once. "
    "Answers the account. Mails are limited per address, per account and per client (429).",
    request=EmailChangeSerializer,
    responses={
        200: AccountSerializer,
        400: OpenApiResponse(OpenApiTypes.OBJECT, description="A wrong password or address, per field."),
        429: OpenApiResponse(OpenApiTypes.OBJECT, description='`{"detail": reason}`: too many mails asked for.'),
        503: OpenApiResponse(OpenApiTypes.OBJECT, description='`{"detail": reason}`: the mail could not be sent.'),
    },
    tags=["account"],
)
class EmailView(APIView):
    serializer_class = EmailChangeSerializer

    def post(self, request: Request) -> Response:
        serializer = EmailChangeSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.open_account(request.user)
        # The profile page's form holds the rules (the password, the same address, nothing to remove).
        form = EmailChangeForm(request.user, serializer.validated_data)
        if not form.is_valid():
            raise ValidationError({field: list(errors) for field, errors in form.errors.items()})
        email = form.cleaned_data["email"]
        if not email:
            email_address.remove(request.user)
        elif not mail_limits.take(request._request, email, request.user):
            return Response({"detail": str(mail_limits.TOO_MANY)}, status=status.HTTP_429_TOO_MANY_REQUESTS)
        elif not email_address.ask(request._request, request.user, email):
            return Response({"detail": _("The email could not be sent. Try again later.")}, status=503)
        return _account(request)


@extend_schema_view(
    get=extend_schema(
        summary="The signed-in account's ledger, newest first",
        description="JSON pages (`page`, `page_size`), or every entry as CSV with `?format=csv` "
        "or at `/api/account/ledger.csv`.",
        tags=["account"],
    )
)
class LedgerView(generics.ListAPIView):
    serializer_class = LedgerEntrySerializer
    pagination_class: type[BasePagination] | None = LedgerPagination
    renderer_classes = [JSONRenderer, BrowsableAPIRenderer, CSVRenderer]

    def get_queryset(self) -> QuerySet[LedgerEntry]:
        wallet = services.open_account(self.request.user)
        return LedgerEntry.objects.filter(wallet=wallet).order_by("-id")

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        if getattr(request.accepted_renderer, "format", None) == "csv":
            # Every entry, but a malformed page_size is refused here too, as the schema says.
            if isinstance(self.paginator, LedgerPagination):
                self.paginator.get_page_size(request)
            response = Response(list(self.get_queryset()))
            response["Content-Disposition"] = f'attachment; filename="caishen-ledger-{request.user.pk}.csv"'
            return response
        return super().list(request, *args, **kwargs)


@extend_schema_view(
    get=extend_schema(
        summary="The signed-in account's whole ledger as CSV, newest first",
        description="Columns: " + ", ".join(ledger_export.HEADER) + ".",
        operation_id="account_ledger_csv",
        responses={(200, "text/csv"): OpenApiTypes.STR},
        tags=["account"],
    )
)
class LedgerCSVView(LedgerView):
    pagination_class = None
    renderer_classes = [CSVRenderer]


class IsStaff(permissions.BasePermission):
    """Staff, and for staff who owe a code from their authenticator app, after giving it."""

    message = "Staff only; staff with an authenticator app give its code on /accounts/second-factor/verify/ first."

    def has_permission(self, request: Request, view: Any) -> bool:
        user = request.user
        return bool(user and user.is_authenticated and user.is_staff and second_factor.missing_step(user) is None)


@extend_schema(
    summary="Staff: credit or debit a user's wallet",
    description="Posts a `staff_credit` (amount > 0) or `staff_debit` (amount < 0) ledger row with the "
    "written reason as its note. A debit larger than the balance, or one that would leave less than the "
    "wallet's active holds (running matches' stakes), is refused with 400 and changes nothing: release or "
    "reduce the hold first (`/api/account/wallets/<user_id>/holds/<hold_id>/`).",
    request=AdjustSerializer,
    responses={
        201: LedgerEntrySerializer,
        400: OpenApiResponse(OpenApiTypes.OBJECT, description="Invalid amount or note, or insufficient funds."),
        403: OpenApiResponse(description="Not staff."),
        404: OpenApiResponse(description="No such user."),
    },
    tags=["account"],
)
class AdjustView(APIView):
    permission_classes = [IsStaff]
    serializer_class = AdjustSerializer

    def post(self, request: Request, user_id: int) -> Response:
        owner = get_object_or_404(get_user_model(), pk=user_id)
        serializer = AdjustSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        wallet = services.open_account(owner)
        try:
            entry = services.adjust(
                wallet, serializer.validated_data["amount"], serializer.validated_data["note"], by=request.user
            )
        except services.HeldFunds as held:
            raise ValidationError({"amount": [held_message(held)]}) from None
        except services.InsufficientFunds:
            raise ValidationError(
                {
                    "amount": [
                        _("A debit of %(amount)s would take the balance (%(balance)s) below zero. Nothing was changed.")
                        % {"amount": -serializer.validated_data["amount"], "balance": wallet.balance}
                    ]
                }
            ) from None
        return Response(LedgerEntrySerializer(entry).data, status=status.HTTP_201_CREATED)


def staff_wallet_hold(user_id: int, hold_id: int) -> Hold:
    return get_object_or_404(Hold, pk=hold_id, wallet__user_id=user_id)


@extend_schema(
    summary="Staff: a user's active holds (running matches' stakes)",
    responses={200: HoldSerializer(many=True), 403: OpenApiResponse(description="Not staff."),
               404: OpenApiResponse(description="No such user.")},
    tags=["account"],
)  # fmt: skip
class HoldListView(APIView):
    permission_classes = [IsStaff]

    def get(self, request: Request, user_id: int) -> Response:
        owner = get_object_or_404(get_user_model(), pk=user_id)
        holds = Hold.objects.filter(wallet__user=owner, released_at__isnull=True).order_by("id")
        return Response(HoldSerializer(holds, many=True).data)


@extend_schema(
    summary="Staff: release or reduce a hold, with a reason",
    description="Releases the hold (`amount` null or absent) or reduces it to `amount` units, which must be "
    "less than what it holds now; the change is recorded with the staff member and the written reason. The "
    "units set free can then be debited. 409 if the hold was already released.",
    request=HoldChangeSerializer,
    responses={
        200: HoldSerializer,
        400: OpenApiResponse(OpenApiTypes.OBJECT, description="Invalid amount or missing reason."),
        403: OpenApiResponse(description="Not staff."),
        404: OpenApiResponse(description="No such user or hold."),
        409: OpenApiResponse(OpenApiTypes.OBJECT, description="The hold was already released."),
    },
    tags=["account"],
)
class HoldChangeView(APIView):
    permission_classes = [IsStaff]
    serializer_class = HoldChangeSerializer

    def post(self, request: Request, user_id: int, hold_id: int) -> Response:
        hold = staff_wallet_hold(user_id, hold_id)
        serializer = HoldChangeSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        amount = serializer.validated_data.get("amount")
        try:
            services.change_hold(hold.pk, amount, serializer.validated_data["note"], by=request.user)
        except services.HoldNotActive:
            return Response({"detail": _("This hold was already released. Nothing was changed.")}, status=409)
        except ValueError:
            raise ValidationError(
                {"amount": [_("The new amount must be less than what is held now. Nothing was changed.")]}
            ) from None
        hold.refresh_from_db()
        return Response(HoldSerializer(hold).data)
