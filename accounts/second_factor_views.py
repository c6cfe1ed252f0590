"""Staff's second-factor pages: enrol an authenticator app, and give a code for this session."""

from __future__ import annotations

from base64 import b32encode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache

from accounts import second_factor
from accounts.forms import TokenForm


def _next(request: HttpRequest) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        return target
    return reverse("accounts:staff_wallets")


@never_cache  # the page shows a secret key
@login_required
def setup(request: HttpRequest) -> HttpResponse:
    """Enrol (or replace) the authenticator: show the key, confirm it with a first code.

    With an authenticator already confirmed, only a session verified by it may replace it: a
    password alone must not be enough to add an attacker's app."""
    user = request.user
    if not user.is_staff:
        raise PermissionDenied
    current = second_factor.confirmed_device(user)
    if current is not None and not second_factor.is_verified(user):
        return redirect(f"{reverse(second_factor.VERIFY_PAGE)}?{urlencode({'next': request.path})}")
    device = second_factor.pending_device(user)
    form = TokenForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        problem = second_factor.check_code(request, device, form.cleaned_data["token"], enrolling=True)
        if problem is None:
            messages.success(request, _("Your authenticator app is confirmed: staff pages will ask for its code."))
            return redirect(_next(request))
        form.add_error("token", problem)
    context = {
        "form": form,
        "has_device": current is not None,
        "required": second_factor.required_for_all_staff(),
        "config_url": device.config_url,
        "secret": b32encode(device.bin_key).decode(),
        "next": request.POST.get("next") or request.GET.get("next") or "",
    }
    return render(request, "accounts/second_factor_setup.html", context, status=400 if form.errors else 200)


@never_cache
@login_required
def verify(request: HttpRequest) -> HttpResponse:
    """Give a code from the enrolled authenticator; this session then has staff powers."""
    device = second_factor.confirmed_device(request.user)
    if device is None:
        if request.user.is_staff and second_factor.required_for_all_staff():
            return redirect(f"{reverse(second_factor.SETUP_PAGE)}?{urlencode({'next': _next(request)})}")
        return redirect(_next(request))
    if second_factor.is_verified(request.user):
        return redirect(_next(request))
    form = TokenForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        problem = second_factor.check_code(request, device, form.cleaned_data["token"])
        if problem is None:
            return redirect(_next(request))
        form.add_error("token", problem)
    context = {"form": form, "next": request.POST.get("next") or request.GET.get("next") or ""}
    return render(request, "accounts/second_factor_verify.html", context, status=400 if form.errors else 200)
