"""Forms of the account pages."""

from __future__ import annotations

import uuid
from typing import Any

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.utils.translation import gettext_lazy as _

from accounts.models import Profile
from accounts.signin_limits import SignInLimitMixin


class SignInForm(SignInLimitMixin, AuthenticationForm):
    """The site's sign-in: Django's form under the sign-in limits (accounts.signin_limits)."""


class StaffSignInForm(SignInLimitMixin, AdminAuthenticationForm):
    """The admin's sign-in (staff only) under the same limits; the code, if any, comes next."""


class TokenForm(forms.Form):
    """A code from the authenticator app (accounts.second_factor)."""

    token = forms.CharField(
        label=_("Code from your authenticator app"),
        max_length=12,
        widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "inputmode": "numeric", "autofocus": True}),
    )

    def clean_token(self) -> str:
        token = "".join(self.cleaned_data["token"].split())
        if not token.isdigit() or len(token) not in (6, 8):
            raise forms.ValidationError(_("The code is the 6 digits your authenticator app shows."))
        return token


class SignUpForm(UserCreationForm):
    """Username, the password twice and an optional display name."""

    display_name = forms.CharField(
        label=_("Display name"),
        max_length=Profile._meta.get_field("display_name").max_length,
        required=False,
        help_text=_("Shown at the table instead of your username. Optional."),
    )


class ProfileForm(forms.ModelForm):
    class Meta:
        model = Profile
        fields = ["display_name", "language"]
        labels = {"display_name": _("Display name"), "language": _("Language")}


class AdjustForm(forms.Form):
    """A staff credit or debit; the written reason becomes the ledger row's note."""

    CREDIT, DEBIT = "credit", "debit"

    direction = forms.ChoiceField(
        label=_("Direction"),
        choices=[(CREDIT, _("Credit (add units)")), (DEBIT, _("Debit (remove units)"))],
        widget=forms.RadioSelect,
        initial=CREDIT,
    )
    amount = forms.IntegerField(label=_("Amount"), min_value=1, max_value=10**12)
    note = forms.CharField(
        label=_("Reason"),
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("Required. Kept in the ledger for good."),
    )
    # A fresh key per rendered form: submitting the same form twice posts once (the ledger's
    # wallet + reference uniqueness refuses the second row).
    token = forms.RegexField(regex=r"^[0-9a-f]{32}$", widget=forms.HiddenInput)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not self.is_bound:
            self.initial.setdefault("token", uuid.uuid4().hex)

    def clean_note(self) -> str:
        note = self.cleaned_data["note"].strip()
        if not note:
            raise forms.ValidationError(_("Write down why the balance changes."))
        return note

    def signed_amount(self) -> int:
        amount = int(self.cleaned_data["amount"])
        return amount if self.cleaned_data["direction"] == self.CREDIT else -amount

    def reference(self) -> str:
        return f"staff:{self.cleaned_data['token']}"
