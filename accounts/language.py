"""The user's language: the profile keeps the choice, the language cookie applies it.

``LocaleMiddleware`` reads the cookie that Django's ``set_language`` view writes (the switch in
the page header).  Signing in, signing up and saving the profile write the same cookie from the
profile, so a saved choice follows the user to any browser.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpResponse
from django.utils import translation


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
