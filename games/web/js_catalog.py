"""The table's words for its JavaScript: the ``djangojs`` gettext catalog, served by Django's
``JavaScriptCatalog`` at ``/jsi18n/<language>/<version>.js``.

One set of files for a translator: the pages' words are in locale/<lang>/LC_MESSAGES/django.po,
the table's (static/js/i18n.js, refusals.js: English messages) in djangojs.po beside it, both
edited with the usual gettext tools and compiled with ``manage.py compilemessages``.

The catalog is cacheable for good: its address carries the language (not read from the
request's cookie or headers, so one address is one text) and a version, a digest of the
compiled catalogs, so new words get a new address.  The response is rendered once per language
and process and sent, compressed, with a year's ``Cache-Control: immutable``.  An address with another
version (a page from before a deploy) gets today's words, cached for a short while only.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path
from typing import Any

from django.conf import settings
from django.dispatch import receiver
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse
from django.utils import translation
from django.utils.autoreload import file_changed
from django.utils.translation.trans_real import DjangoTranslation
from django.views.decorators.gzip import gzip_page
from django.views.decorators.http import require_safe
from django.views.i18n import JavaScriptCatalog

DOMAIN = "djangojs"
YEAR = 365 * 24 * 3600
STALE_SECONDS = 300  # a stale version's answer: today's words, soon asked again


def languages() -> set[str]:
    return {code for code, _name in settings.LANGUAGES}


@cache
def catalog_version() -> str:
    """A digest of the compiled catalogs of every language: their address's version."""
    digest = hashlib.sha256()
    for folder in settings.LOCALE_PATHS:
        for mo in sorted(folder.glob(f"*/LC_MESSAGES/{DOMAIN}.mo")):
            digest.update(mo.parent.parent.name.encode() + b"\0" + mo.read_bytes())
    return digest.hexdigest()[:16]


def catalog_url(language: str | None = None) -> str:
    """The catalog's address for ``language`` (default: the active one; one of settings.LANGUAGES,
    else the site's default)."""
    language = language or translation.get_language()
    if language not in languages():
        language = settings.LANGUAGE_CODE
    return reverse("games:js_catalog", kwargs={"language": language, "version": catalog_version()})


class ProjectCatalog(JavaScriptCatalog):
    """JavaScriptCatalog over the project's own ``djangojs`` catalogs only (LOCALE_PATHS): not
    the installed apps' (the admin's), which the table never uses."""

    def get(self, request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        self.translation = DjangoTranslation(
            translation.get_language(), domain=DOMAIN, localedirs=[str(p) for p in settings.LOCALE_PATHS]
        )
        return self.render_to_response(self.get_context_data())


@cache
def rendered(language: str) -> bytes:
    """The catalog script in ``language``, rendered once per process."""
    request = HttpRequest()
    request.method = "GET"
    with translation.override(language):
        response = ProjectCatalog.as_view()(request)
    assert isinstance(response, HttpResponse)
    return bytes(response.content)


@require_safe
@gzip_page  # ~46 kB of Chinese as JSON escapes, ~13 kB compressed; no secret in it to guess at
def js_catalog(request: HttpRequest, language: str, version: str) -> HttpResponse:
    if language not in languages():
        raise Http404("no such language")
    response = HttpResponse(rendered(language), content_type="text/javascript; charset=utf-8")
    current = version == catalog_version()
    response["Cache-Control"] = f"public, max-age={YEAR}, immutable" if current else f"public, max-age={STALE_SECONDS}"
    return response


@receiver(file_changed)
def forget_catalogs(sender: Any, file_path: Path, **kwargs: Any) -> None:
    """The development server's reloader saw a file change: a new compiled catalog gets a new
    version and text (the reloader itself restarts nothing for a .mo file)."""
    if file_path.suffix == ".mo":
        catalog_version.cache_clear()
        rendered.cache_clear()
