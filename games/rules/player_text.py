"""The player-facing rules of each rule set, in the reader's language.

One Markdown file per rule set and language, ``games/rules/text/<key>.<lang>.md`` (``zh`` or
``en``), written for players from the rule documents; the developers' specification stays in
spec/ and docs/ and is never shown on the player's page.  The files are ours and hold no raw
HTML, and Python-Markdown is asked to escape any that slips in.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import markdown
from django.utils.translation import get_language

TEXT_DIR = Path(__file__).resolve().parent / "text"
LANGUAGES = ("zh", "en")


def reader_language() -> str:
    return "en" if (get_language() or "").startswith("en") else "zh"


def source(key: str, lang: str) -> str | None:
    """The Markdown of rule set ``key`` in ``lang``; None when there is none (or ``key`` is odd)."""
    if lang not in LANGUAGES or not key.replace("_", "").isalnum():
        return None
    path = TEXT_DIR / f"{key}.{lang}.md"
    return path.read_text(encoding="utf-8") if path.is_file() else None


@lru_cache(maxsize=32)
def _render(key: str, lang: str) -> str | None:
    text = source(key, lang)
    if text is None:
        return None
    md = markdown.Markdown(extensions=["tables"])
    md.preprocessors.deregister("html_block")  # raw HTML is shown as text, never passed through
    md.inlinePatterns.deregister("html")
    return md.convert(text)


def render(key: str, lang: str | None = None) -> str | None:
    """The rules of ``key`` as HTML in ``lang`` (default: the reader's language)."""
    return _render(key, lang or reader_language())
