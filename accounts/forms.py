"""Forms of the account pages."""

from __future__ import annotations

import uuid
from typing import Any

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.utils.translation import gettext_lazy as _

from accounts import closure, email_address
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


def _email_field(label: Any, help_text: Any) -> forms.EmailField:
    return forms.EmailField(label=label, required=False, max_length=254, help_text=help_text)


class SignUpForm(UserCreationForm):
    """Username, an optional email address, the password twice and an optional display name."""

    email = _email_field(
        _("Email address"),
        _("Optional: for resetting a forgotten password. We send a link to confirm it; it is never shown to others."),
    )
    display_name = forms.CharField(
        label=_("Display name"),
        max_length=Profile._meta.get_field("display_name").max_length,
        required=False,
        help_text=_("Shown at the table instead of your username. Optional."),
    )

    field_order = ["username", "email", "password1", "password2", "display_name"]

    def clean_username(self) -> str:
        username: str = super().clean_username()
        # The tombstones of closed accounts have this form (accounts.closure): nobody may take one.
        if closure.is_tombstone(username):
            raise forms.ValidationError(_("Usernames of the form closed-<number> are reserved."))
        return username

    def clean_email(self) -> str:
        return email_address.normalise(self.cleaned_data.get("email") or "")


class PasswordCheckForm(forms.Form):
    """The account's current password, asked before a change that an open browser alone must not
    make (another address, closing the account)."""

    password = forms.CharField(
        label=_("Your password"), strip=False, widget=forms.PasswordInput(attrs={"autocomplete": "current-password"})
    )
    # The profile page shows several of these forms: each needs ids of its own for its fields.
    id_prefix = "password_check"

    def __init__(self, user: Any, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", f"{self.id_prefix}_%s")
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_password(self) -> str:
        password: str = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise forms.ValidationError(_("That is not your password."), code="wrong_password")
        return password


class EmailChangeForm(PasswordCheckForm):
    """A new address (confirmed by a link before it is used), or none to remove the address."""

    email = _email_field(
        _("New email address"), _("Leave it empty to remove your address (then no password reset by email).")
    )
    field_order = ["email", "password"]
    id_prefix = "email_change"

    def clean_email(self) -> str:
        email = email_address.normalise(self.cleaned_data.get("email") or "")
        if email and email.casefold() == (self.user.email or "").casefold():
            raise forms.ValidationError(_("This is already your address."))
        if not email and not self.user.email and not self.user.profile.pending_email:
            raise forms.ValidationError(_("You have no address to remove: type the new one."))
        return email


class CloseAccountForm(PasswordCheckForm):
    """Closing the account (accounts.closure): the password confirms it."""

    id_prefix = "close"


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


class HoldChangeForm(forms.Form):
    """A staff member releases a running match's hold, or reduces it, with a written reason."""

    amount = forms.IntegerField(
        label=_("Hold at most"),
        min_value=0,
        max_value=10**12,
        required=False,
        help_text=_("The units the match keeps held. Leave empty to release the whole hold."),
    )
    note = forms.CharField(
        label=_("Reason"),
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=_("Required. Kept with the change for good."),
    )

    def clean_note(self) -> str:
        note = self.cleaned_data["note"].strip()
        if not note:
            raise forms.ValidationError(_("Write down why the hold changes."))
        return note
