"""Closing the account from the profile page (accounts/closure.py has what it does)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import logout
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _

from accounts import closure
from accounts.forms import CloseAccountForm
from accounts.profile_page import me, profile_form, render_profile


@profile_form(CloseAccountForm, "close_form")
def close(request: HttpRequest, form: CloseAccountForm) -> HttpResponse:
    try:
        closure.close(me(request))
    except closure.MustWait as wait:
        for reason in wait.reasons:
            form.add_error(None, reason)
        return render_profile(request, status=409, close_form=form)
    logout(request)
    # After logout: the message is kept for the next page of this browser (its cookie), which
    # is no longer signed in.
    messages.success(request, _("Your account is closed. Thank you for playing."))
    return redirect("/")
