"""The admin site: its sign-in under the sign-in limits, and staff's second factor before any page.

Django's admin sign-in had no limit at all.  Here it uses the same form mixin as the site's
sign-in (accounts.signin_limits: 429 when refused or slowed down, a device cookie on success).
A staff member who must give a code (accounts.second_factor) is sent to the code page after the
password and whenever an admin page is opened without one; until then the admin treats them as
not staff.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse, HttpResponseBase, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.views.decorators.cache import never_cache

from accounts import second_factor, signin_limits
from accounts.forms import StaffSignInForm


def _to_second_factor(request: HttpRequest, step: str, next_url: str) -> HttpResponseRedirect:
    if not url_has_allowed_host_and_scheme(next_url, allowed_hosts={request.get_host()}):
        next_url = reverse("admin:index")
    return HttpResponseRedirect(f"{reverse(step)}?{urlencode({'next': next_url})}")


class StaffAdminSite(admin.AdminSite):
    login_form = StaffSignInForm

    def has_permission(self, request: HttpRequest) -> bool:
        return super().has_permission(request) and second_factor.missing_step(request.user) is None

    # As Django's own AdminSite.login: an override does not inherit its decorators.
    @method_decorator(never_cache)
    @login_not_required
    def login(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        # Signed in with the password (here or on the site) but the code is still missing.
        step = second_factor.missing_step(request.user)
        if step is not None:
            return _to_second_factor(request, step, request.GET.get("next") or reverse("admin:index"))
        response: HttpResponseBase = super().login(request, extra_context)
        if request.method != "POST":
            return response  # type: ignore[return-value]
        if response.status_code == 302 and request.user.is_authenticated:  # the password was right
            step = second_factor.missing_step(request.user)
            if step is not None:
                response = _to_second_factor(request, step, response["Location"])
            signin_limits.remember_device(request, response, request.user)
        elif isinstance(response, TemplateResponse) and response.context_data:
            form = response.context_data.get("form")
            if form is not None and signin_limits.was_refused(form):
                response.status_code = 429
                seconds = signin_limits.retry_after(form)
                if seconds is not None:
                    response["Retry-After"] = str(seconds)
        return response  # type: ignore[return-value]
