"""Closing the account from the profile page (accounts/closure.py has what it does)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts import closure
from accounts.forms import CloseAccountForm
from accounts.profile_page import me, render_profile


@login_required
@require_POST
def close(request: HttpRequest) -> HttpResponse:
    user = me(request)
    form = CloseAccountForm(user, request.POST)
    if not form.is_valid():
        return render_profile(request, status=400, close_form=form)
    try:
        closure.close(user)
    except closure.MustWait as wait:
        for reason in wait.reasons:
            form.add_error(None, reason)
        return render_profile(request, status=409, close_form=form)
    logout(request)
    # After logout: the message is kept for the next page of this browser (its cookie), which
    # is no longer signed in.
    messages.success(request, _("Your account is closed. Thank you for playing."))
    return redirect("/")
