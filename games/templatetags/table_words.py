"""``{% js_catalog %}``: the script tag of the table's words (games/web/js_catalog.py), in the
reader's language.  A page puts it before the modules that import static/js/i18n.js: a classic
script runs as it is parsed, modules after, so the words are there when the modules start."""

from __future__ import annotations

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

from games.web.js_catalog import catalog_url

register = template.Library()


@register.simple_tag
def js_catalog() -> SafeString:
    return format_html('<script src="{}"></script>', catalog_url())
