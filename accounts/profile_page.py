"""The profile page: its forms (profile, email address, closing the account, API token) and the
player's recent hands, rendered by every view that answers with it."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_POST

from accounts import api_tokens
from accounts.forms import CloseAccountForm, EmailChangeForm, PasswordCheckForm, ProfileForm
from accounts.models import Profile


def me(request: HttpRequest) -> User:
    """The signed-in user (views behind login_required)."""
    assert request.user.is_authenticated
    return request.user


def render_profile(request: HttpRequest, status: int = 200, **forms: Any) -> HttpResponse:
    """The profile page with its forms; ``forms`` replaces the empty ones (a form with errors)
    and adds to the context (a new token's key)."""
    user = me(request)
    account, _created = Profile.objects.get_or_create(user=user)
    context = {
        "form": ProfileForm(instance=account),
        "email_form": EmailChangeForm(user),
        "close_form": CloseAccountForm(user),
        "profile": account,
        "recent_hands": recent_hands(user),
        "api_token": api_tokens.current(user),
        **forms,
    }
    return render(request, "accounts/profile.html", context, status=status)


def profile_form(
    form_class: type[PasswordCheckForm], name: str
) -> Callable[[Callable[[HttpRequest, Any], HttpResponse]], Callable[[HttpRequest], HttpResponse]]:
    """A view of one of the profile page's password forms, signed in and POST only: it is given
    the form bound to the post once valid; an invalid one is the profile page again, answered 400
    with the form (as ``name`` in the context) showing its errors."""

    def decorate(view: Callable[[HttpRequest, Any], HttpResponse]) -> Callable[[HttpRequest], HttpResponse]:
        @login_required
        @require_POST
        @wraps(view)
        def wrapped(request: HttpRequest) -> HttpResponse:
            form = form_class(me(request), request.POST)
            if not form.is_valid():
                return render_profile(request, status=400, **{name: form})
            return view(request, form)

        return wrapped

    return decorate


RECENT_HANDS = 20


def recent_hands(user: Any) -> list[Any]:
    """The user's latest finished hands, newest first, for their replay links, so that a
    player can find their replays.  The games app is looked up, not imported: it builds on this one."""
    from django.apps import apps

    Hand = apps.get_model("games", "Hand")
    return list(
        Hand.objects.filter(table__seats__user=user, status="finished")
        .select_related("table")
        .only("pk", "number", "finished_at", "table__id", "table__hands_total")
        .order_by("-finished_at", "-pk")
        .distinct()[:RECENT_HANDS]
    )
