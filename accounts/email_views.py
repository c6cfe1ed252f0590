"""The account's email address on the site: change it from the profile page, confirm it from the
link mailed to it (accounts/email_address.py has the rules)."""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from accounts import email_address, mail_limits
from accounts.forms import EmailChangeForm
from accounts.profile_page import me, profile_form, render_profile


def ask_for_address(request: HttpRequest, user: Any, email: str) -> HTTPStatus | None:
    """Mail the confirmation link (sign-up, the profile page) and say so; or say why not and
    return the status of that refusal."""
    if not mail_limits.take(request, email, user):
        messages.error(request, mail_limits.TOO_MANY)
        return HTTPStatus.TOO_MANY_REQUESTS
    if not email_address.ask(request, user, email):
        messages.error(request, _("The email could not be sent. Try again later."))
        return HTTPStatus.SERVICE_UNAVAILABLE
    messages.success(
        request,
        _("We sent a link to %(email)s. Your address changes when you follow it.") % {"email": email},
    )
    return None


@profile_form(EmailChangeForm, "email_form")
def change(request: HttpRequest, form: EmailChangeForm) -> HttpResponse:
    user, email = me(request), form.cleaned_data["email"]
    if not email:
        email_address.remove(user)
        messages.success(request, _("Your email address is removed."))
    elif (refused := ask_for_address(request, user, email)) is not None:
        return render_profile(request, status=refused, email_form=form)
    return redirect("accounts:profile")


def confirm(request: HttpRequest, token: str) -> HttpResponse:
    """GET shows what the link confirms and a button; POST confirms.  A link alone never changes
    the account: mail programs and scanners open links by themselves."""
    try:
        user, email = email_address.confirm(token) if request.method == "POST" else email_address.read(token)
    except email_address.Refused as refused:
        return render(request, "accounts/email_confirm.html", {"error": str(refused)}, status=400)
    if request.method == "POST":
        messages.success(request, _("%(email)s is now the address of your account.") % {"email": email})
        return redirect("accounts:profile" if request.user.is_authenticated else "accounts:login")
    return render(request, "accounts/email_confirm.html", {"username": user.get_username(), "email": email})
