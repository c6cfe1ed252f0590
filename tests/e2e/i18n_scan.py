"""The untranslated-string scan: what a page shows in the other language.

``untranslated(page, lang)`` reads every visible text node of the page and returns the strings
that are not in the page's language: on a zh-Hans page any Latin word outside the allow-list,
on an English page any CJK character outside tile faces, players' names and the allow-list.
Skipped: scripts, ``<code>`` / ``<kbd>`` / ``<samp>`` (keys and codes), form values, elements
marked with another ``lang`` (the language switch names each language in itself), tiles
(``.tile``, SVG faces) and players' names (``.chair-name``, ``.who``, ``[data-name]``).

It also flags developer text a player should never read, in either language and inside
``<code>`` too: the rule sets' specification file names (``004_f868d7dffdb39075.zh.txt``),
hex hashes of 16 digits or more (a wall commitment, a seed), the rule sets' keys (``dongbei``)
and the ledger's raw references (``hand:3``, ``table:5``) — ``developer_text(page)``.

``Scan`` collects the offenders page by page, so one walk through the site reports everything
at once; a test asserts ``scan.offenders(page_name) == []`` per page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

# Words a zh-Hans page may show in Latin letters: the product's name, the API's, the language
# switch's "English", units and formats.
LATIN_ALLOWED = frozenset(
    {
        "caishen",
        "api",
        "english",
        "sha",
        "json",
        "jsonl",
        "lines",  # "JSON Lines" is the export format's name
        "csv",
        "id",
        "ok",
        "url",
        "utf",
        "utc",  # a time's zone: "(UTC+8)"
    }
)
# Characters an English page may show in Chinese: the product's name and the wild-tile families
# the rule sets are named for (财神 / 得 / 金), as the home page's introduction does.
CJK_ALLOWED = frozenset("财神得金")

_TEXTS_JS = """(lang) => {
  const skip = "script, style, noscript, template, code, kbd, samp, textarea, .tile, svg, "
    + ".chair-name, .who, [data-name]";
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const text = node.textContent.replace(/\\s+/g, " ").trim();
    if (!text) continue;
    const el = node.parentElement;
    if (!el || el.closest(skip)) continue;
    const marked = el.closest("[lang]");
    if (marked && marked !== document.documentElement && !marked.lang.toLowerCase().startsWith(lang)) continue;
    if (!el.checkVisibility || !el.checkVisibility()) continue;
    out.push(text);
  }
  for (const el of document.querySelectorAll("input[placeholder], [aria-label], [title]")) {
    if (el.closest("[lang]") && !el.closest("[lang]").lang.toLowerCase().startsWith(lang)) continue;
    for (const attr of ["placeholder", "aria-label", "title"]) {
      const v = el.getAttribute(attr);
      if (v && attr !== "title") out.push(v);
    }
  }
  out.push(document.title);
  return out;
}"""

# Everything visible, <code> included (where the keys, hashes and file names used to hide).
_ALL_TEXTS_JS = """() => {
  const skip = "script, style, noscript, template, textarea, .tile, svg";
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const text = node.textContent.replace(/\\s+/g, " ").trim();
    const el = node.parentElement;
    if (!text || !el || el.closest(skip)) continue;
    if (!el.checkVisibility || !el.checkVisibility()) continue;
    out.push(text);
  }
  return out;
}"""

RULE_SET_KEYS = ("dongbei", "wenzhou", "zhangzhou", "zhedong_de", "zhejiang_caishen")
DEVELOPER_TEXT = re.compile(
    r"\b\w+\.(?:zh|en)\.(?:txt|md)\b"  # a specification's file name
    r"|\b\d{3}_[0-9a-f]{8,}\b"
    r"|\b[0-9a-f]{16,}\b"  # a hash or a seed
    r"|\b(?:hand|table|escape|staff):\d"  # a ledger reference
    r"|\b(?:" + "|".join(RULE_SET_KEYS) + r")\b",
)


def developer_text(page: Any) -> list[str]:
    """The page's visible strings that hold developer text (see the module's docstring)."""
    seen: list[str] = []
    for text in page.evaluate(_ALL_TEXTS_JS):
        if DEVELOPER_TEXT.search(text) and text not in seen:
            seen.append(text)
    return seen


LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'’]+")
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def offending(text: str, lang: str) -> bool:
    """Is ``text`` (one visible string) in the wrong language for a ``lang`` ("zh"/"en") page?"""
    if lang == "zh":
        return any(w.lower() not in LATIN_ALLOWED for w in LATIN_WORD.findall(text))
    return any(c not in CJK_ALLOWED for c in CJK.findall(text))


def untranslated(page: Any, lang: str, names: list[str] | None = None) -> list[str]:
    """The page's visible strings that are not in ``lang`` ("zh" or "en"), each once; ``names``
    (players' names) are taken out of each string first."""
    seen: list[str] = []
    for text in page.evaluate(_TEXTS_JS, lang):
        bare = text
        for n in sorted(names or [], key=len, reverse=True):
            bare = bare.replace(n, " ")
        if offending(bare, lang) and text not in seen:
            seen.append(text)
    return seen


@dataclass
class Scan:
    """Offending strings by page name, collected along a walk through the site."""

    lang: str
    # Players' names (the account's, the bots' "Bot 2"): names are not words to translate.
    names: list[str] = field(default_factory=list)
    found: dict[str, list[str]] = field(default_factory=dict)

    def check(self, page: Any, name: str) -> list[str]:
        strings = untranslated(page, self.lang, self.names)
        strings += [s for s in developer_text(page) if s not in strings]
        self.found.setdefault(name, [])
        self.found[name] += [s for s in strings if s not in self.found[name]]
        return strings

    def offenders(self, name: str) -> list[str]:
        assert name in self.found, f"the walk never visited {name!r} (visited: {sorted(self.found)})"
        return self.found[name]

    def report(self) -> str:
        return "\n".join(f"{name}: {strings}" for name, strings in self.found.items() if strings)
