"""The developers' copy of each rule set's SPEC section (spec/rules/SPEC.md), read by tests and tools.

The section is read from SPEC.md itself (D0 → ``zhejiang_caishen``, D1 → ``zhedong_de``,
D2 → ``wenzhou``, D3 → ``zhangzhou``, D4 → ``dongbei``): from its ``## Dn:`` heading up to the
``---`` rule that closes it, so developers read the specification the tests are held to.  The player rules pages do
not show it: they render games/rules/text/ (see player_text.py).

SPEC.md is written for GitHub-style renderers, which start a list right after a
paragraph line and nest lists by two spaces.  Python-Markdown wants a blank line
before a list (or table) and four spaces per level, so :func:`render` adapts the
text before converting it; the file itself stays as it is.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import markdown

SPEC_DIR = Path(__file__).resolve().parents[2] / "spec"  # the repository's spec/ (see its README)
SPEC_FILE = SPEC_DIR / "rules" / "SPEC.md"
SECTIONS = {
    "zhejiang_caishen": "D0",
    "zhedong_de": "D1",
    "wenzhou": "D2",
    "zhangzhou": "D3",
    "dongbei": "D4",
}

_LIST_ITEM = re.compile(r"^(?P<indent> *)(?:[-*+]|\d+[.)]) ")
_FENCE = re.compile(r"^ *(```|~~~)")


def rule_text(key: str) -> str | None:
    """The SPEC section of the variant ``key``, as Markdown; None when there is no text."""
    section = SECTIONS.get(key)
    return None if section is None else _sections().get(section)


@lru_cache(maxsize=1)
def _sections() -> dict[str, str]:
    """SPEC.md's rule-set sections by name ("D0": its text from the heading to the closing rule)."""
    found: dict[str, str] = {}
    name: str | None = None
    lines: list[str] = []
    for line in [*SPEC_FILE.read_text(encoding="utf-8").splitlines(), "---"]:
        heading = re.match(r"## (D\d+):", line)
        if name is not None and (heading or line.startswith("## ") or line.rstrip() == "---"):
            found[name] = "\n".join(lines).rstrip() + "\n"
            name = None
        if heading:
            name, lines = heading.group(1), []
        if name is not None:
            lines.append(line)
    return found


def adapt(text: str) -> str:
    """GitHub-style lists and tables → what Python-Markdown parses the same way."""
    out: list[str] = []
    in_fence = False
    in_list = False
    indents: list[int] = []  # the original indents of the open list levels
    prev = ""
    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
            out.append(line)
            prev = line
            continue
        if in_fence:
            out.append(line)
            prev = line
            continue
        if not line.strip():
            in_list = False
            indents = []
            out.append(line)
            prev = line
            continue
        item = _LIST_ITEM.match(line)
        if item:
            if not in_list and prev.strip():
                out.append("")  # a list must not continue the paragraph above it
            in_list = True
            indent = len(item.group("indent"))
            while indents and indents[-1] >= indent:
                indents.pop()
            depth = len(indents)
            indents.append(indent)
            out.append(" " * (4 * depth) + line.lstrip(" "))
        elif in_list and line.startswith(" "):
            out.append(" " * (4 * len(indents)) + line.lstrip(" "))
        else:
            if line.lstrip().startswith("|") and prev.strip() and not prev.lstrip().startswith("|"):
                out.append("")  # likewise a table
                in_list = False
                indents = []
            out.append(line)
        prev = line
    return "\n".join(out) + "\n"


@lru_cache(maxsize=16)
def _render(text: str) -> str:
    return markdown.markdown(adapt(text), extensions=["tables", "fenced_code", "sane_lists"], output_format="html")


def render(key: str) -> str | None:
    """The variant's rule text as HTML (trusted: the files are ours), or None."""
    text = rule_text(key)
    return None if text is None else _render(text)
