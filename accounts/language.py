"""The user's language: the profile keeps the choice, the language cookie applies it.

``LocaleMiddleware`` reads the cookie that Django's ``set_language`` view writes (the switch in
the page header).  Signing in, signing up and saving the profile write the same cookie from the
profile, so a saved choice follows the user to any browser; the header's switch, used signed
in, saves the choice on the profile too (``set_language`` below), so signing in again keeps it.
An account whose language was never chosen (``Profile.language_chosen``) adopts, at its first
sign-in, the language the visitor was reading.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.views import i18n as i18n_views


def supported(language: str) -> bool:
    return language in dict(settings.LANGUAGES)


def remember_language(response: HttpResponse, language: str) -> HttpResponse:
    """Set the language cookie exactly as ``django.views.i18n.set_language`` does."""
    if supported(language):
        translation.activate(language)
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME,
            language,
            max_age=settings.LANGUAGE_COOKIE_AGE,
            path=settings.LANGUAGE_COOKIE_PATH,
            domain=settings.LANGUAGE_COOKIE_DOMAIN,
            secure=settings.LANGUAGE_COOKIE_SECURE,
            httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
            samesite=settings.LANGUAGE_COOKIE_SAMESITE,
        )
    return response


def save_choice(user: Any, language: str) -> None:
    """Keep ``language`` as ``user``'s choice (a signed-in user; unsupported codes are ignored)."""
    from accounts.models import Profile

    if supported(language) and getattr(user, "is_authenticated", False):
        Profile.objects.filter(user=user).update(language=language, language_chosen=True)


def language_at_sign_in(user: Any) -> str | None:
    """The language to apply when ``user`` signs in: the saved choice, else (never chosen) the
    one the visitor is reading now, which becomes the choice."""
    from accounts.models import Profile

    profile = Profile.objects.filter(user=user).first()
    if profile is None:
        return None
    if profile.language_chosen:
        return profile.language
    current = translation.get_language()
    save_choice(user, current)
    return current if supported(current) else profile.language


def set_language(request: HttpRequest) -> HttpResponse:
    """The header's switch: Django's ``set_language``, and for a signed-in user the profile too."""
    response = i18n_views.set_language(request)
    if request.method == "POST":
        save_choice(request.user, str(request.POST.get("language", "")))
    return response
