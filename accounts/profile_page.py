"""The profile page: its forms (profile, email address, closing the account, API token) and the
player's recent hands, rendered by every view that answers with it."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from accounts import api_tokens
from accounts.forms import CloseAccountForm, EmailChangeForm, ProfileForm
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
