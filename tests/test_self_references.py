"""The project speaks of itself as it is: no tracker items, no working sessions, no dead citations.

Code, tests, templates, static files, scripts, the catalogue's comments and the docs say what the
project does and why.  Where a change came from (the tracker's item, the working sitting that
wrote it) belongs in the commit message, and it reads as noise to anyone without the tracker.
Two checks over the same files:

* no tracker or working-session wording: ``TRACKER`` and ``WORK_SESSIONS`` below.  The word in
  Django's sense (a signed-in browser's session) is not one of them, so the session patterns are
  a short explicit list, none of which matches that sense (the examples below show both);
* every citation of a section, ``docs/<file>.md, "<section>"``, names a heading of that file
  (or a paragraph's bold label, ``**<section>**``), so a reader can find what it points at.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SCANNED = [
    "games",
    "accounts",
    "mahjong_platform",
    "tournaments",
    "ratings",
    "tests",
    "scripts",
    "templates",
    "static",
    "locale",
    "docs",
    "README.md",
    "pyproject.toml",
]
TEXT_SUFFIXES = {".py", ".md", ".html", ".txt", ".js", ".css", ".svg", ".sh", ".po", ".toml", ".json", ".yml"}
THIS_FILE = Path(__file__).resolve()
# The two words, spelt once: this file is the one place that must name what the others may not,
# and its examples are written with them so that they read as examples, not as history.
ISSUE, SESSION = "issue", "session"

# The tracker's words: its items' numbers and their sub-items.
TRACKER = [
    re.compile(r"\b[Ii]ssue #?\d+"),
    re.compile(r"\b(?:deliverable|defect|finding|decision)s? \d+", re.IGNORECASE),
    re.compile(r"\bred[- ]team", re.IGNORECASE),
]
# A working sitting, never a signed-in browser's session: counted, placed in time, or "of this" one.
WORK_SESSIONS = [
    re.compile(
        r"\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|earlier|later|previous|next)"
        r" session\b",
        re.IGNORECASE,
    ),
    re.compile(r"\bsession \d+", re.IGNORECASE),
    re.compile(r"\b(?:of|during|since|until) this " + SESSION + r"\b", re.IGNORECASE),
]

# ``docs/<file>.md, "<section>"``, the quote possibly on the next line of a comment.
CITATION = re.compile(r'(docs/[\w/-]+\.md),?(?:\s|#|//|\*)*\(?["“]([^"”\n]+)["”]')


def scanned_files() -> list[Path]:
    files: list[Path] = []
    for name in SCANNED:
        path = REPO / name
        if path.is_file():
            files.append(path)
        elif path.is_dir():
            files += sorted(
                p for p in path.rglob("*") if p.is_file() and p.suffix in TEXT_SUFFIXES and "__pycache__" not in p.parts
            )
    return [p for p in files if p.resolve() != THIS_FILE]


def offending_lines(patterns: list[re.Pattern[str]], files: list[Path]) -> list[str]:
    found = []
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            hits = [m.group(0) for pattern in patterns for m in pattern.finditer(line)]
            if hits:
                found.append(f"{path.relative_to(REPO)}:{number}: {', '.join(hits)}")
    return found


@pytest.mark.parametrize(
    ("patterns", "what"), [(TRACKER, "the tracker"), (WORK_SESSIONS, "a working session")], ids=["tracker", "sessions"]
)
def test_nothing_speaks_of_the_tracker_or_of_working_sessions(patterns: list[re.Pattern[str]], what: str) -> None:
    found = offending_lines(patterns, scanned_files())
    assert not found, f"say what the code does and why, not {what}:\n" + "\n".join(found)


def example(template: str) -> str:
    return template.format(issue=ISSUE, Issue=ISSUE.title(), session=SESSION)


@pytest.mark.parametrize(
    "template",
    [
        "the fan-out ({issue} 17)",
        "see {issue} #5",
        "{Issue} 19 item 10: never",
        "({issue} 8, deliverable 5)",
        "finding 12",
        "decision 2",
        "found in the red-team run",
        "Fourth {session}",
        "measured in {session} 3",
        "branches of this {session}",
        "in the next {session}",
    ],
)
def test_the_patterns_catch_what_they_are_for(template: str) -> None:
    text = example(template)
    assert any(pattern.search(text) for pattern in TRACKER + WORK_SESSIONS), text


@pytest.mark.parametrize(
    "template",
    [
        "this {session} gave the code",
        "a {session} verified by it may replace it",
        "Whether a code was given in this {session}",
        "one daphne for the {session}",
        "per {session} and per address",
        "No kong into the reserve (SPEC D1.3 item 15)",
        "the {issue}s a linter reports",
    ],
)
def test_the_patterns_leave_other_senses_alone(template: str) -> None:
    text = example(template)
    assert not any(pattern.search(text) for pattern in TRACKER + WORK_SESSIONS), text


def named_places(doc: Path) -> set[str]:
    """A doc's headings and its paragraphs' bold labels, as citations name them."""
    text = doc.read_text(encoding="utf-8")
    headings = {re.sub(r"^#+\s*", "", line).strip() for line in text.splitlines() if line.startswith("#")}
    return headings | set(re.findall(r"\*\*([^*\n]+)\*\*", text))


def is_named(section: str, places: set[str]) -> bool:
    # A citation may leave off a heading's tail: "Table settings" for "Table settings and quick
    # phrases", "听牌 hints" for "听牌 hints (`hand.hints`)".
    return any(place == section or place.startswith(section + " ") for place in places)


def test_every_cited_section_of_the_docs_exists() -> None:
    places: dict[str, set[str]] = {}
    dead = []
    for path in scanned_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in CITATION.finditer(text):
            doc, section = match.group(1), match.group(2).strip()
            if doc not in places:
                places[doc] = named_places(REPO / doc) if (REPO / doc).is_file() else set()
            if not is_named(section, places[doc]):
                line = text.count("\n", 0, match.start()) + 1
                dead.append(f'{path.relative_to(REPO)}:{line}: {doc}, "{section}"')
    assert not dead, "citations of sections that do not exist:\n" + "\n".join(dead)


def test_the_citation_check_sees_a_citation_split_over_comment_lines() -> None:
    comment = 'Why (docs/performance.md,\n# "The scaled mode"): pub/sub'
    assert [m.groups() for m in CITATION.finditer(comment)] == [("docs/performance.md", "The scaled mode")]
