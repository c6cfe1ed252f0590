"""The table's words as the JavaScript asks for them: every ``gettext("…")``,
``pgettext("context", "…")`` and ``ngettext("…", "…", n)`` in static/ (static/js/i18n.js,
refusals.js and any module that calls them), keyed as gettext keys its catalog: ``msgid``,
``context\\x04msgid``, and ``(msgid, 0)`` for a counted sentence's one Chinese form.  The same
calls that ``manage.py makemessages -d djangojs`` (xgettext) collects."""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.node_runtime import require_node

ROOT = Path(__file__).resolve().parents[1]
STATIC = ROOT / "static"
LOCALE = ROOT / "locale" / "zh_Hans" / "LC_MESSAGES"
STRING = r'"(?:[^"\\]|\\.)*"'
CALL = re.compile(rf"\b(gettext|pgettext|ngettext)\(\s*({STRING})(?:\s*,\s*({STRING}))?")


@dataclass(frozen=True)
class Message:
    path: str
    context: str | None
    msgid: str
    plural: str | None

    @property
    def key(self) -> str | tuple[str, int]:
        """The message's key in a compiled catalog (``gettext.GNUTranslations._catalog``)."""
        key = f"{self.context}\x04{self.msgid}" if self.context else self.msgid
        return (key, 0) if self.plural is not None else key


def js_files() -> list[Path]:
    return sorted(p for p in STATIC.rglob("*.js") if "vendor" not in p.parts)


def messages() -> list[Message]:
    out = []
    for path in js_files():
        for call in CALL.finditer(path.read_text(encoding="utf-8")):
            name, first, second = call[1], json.loads(call[2]), json.loads(call[3]) if call[3] else None
            rel = str(path.relative_to(ROOT))
            if name == "pgettext" and second is not None:
                out.append(Message(rel, first, second, None))
            elif name == "ngettext" and second is not None:
                out.append(Message(rel, None, first, second))
            elif name == "gettext":
                out.append(Message(rel, None, first, None))
    return out


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


def node_script(lang: str, body: str, catalog: Path) -> str:
    """A node module that runs ``body`` on a page in ``lang`` whose catalog script (``catalog``,
    what /jsi18n/ serves) ran first, as the browser runs the classic script before the modules."""
    return (
        "import vm from 'node:vm'; import fs from 'node:fs';"
        f"globalThis.document = {{documentElement: {{lang: {json.dumps(lang)}}}}};"
        f"vm.runInThisContext(fs.readFileSync({json.dumps(str(catalog))}, 'utf8'));" + body
    )


def run_in_node(lang: str, module: Path, body: str, payload: Any, tmp: Path) -> Any:
    """``body`` run in node on a page in ``lang`` whose catalog (as /jsi18n/ serves it) ran
    first: it may import ``module`` as ``process.argv[1]`` and read ``payload`` as JSON from
    ``process.argv[2]``; what it prints is parsed as JSON and returned."""
    from games.web.js_catalog import rendered  # (Django set up by then: a test calls this)

    node = require_node()
    catalog = tmp / f"catalog-{lang}.js"
    catalog.write_bytes(rendered(lang))
    proc = subprocess.run(
        [node, "--input-type=module", "-e", node_script(lang, body, catalog), module.as_uri(), json.dumps(payload)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(proc.stdout)
