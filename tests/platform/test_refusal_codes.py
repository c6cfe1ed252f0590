"""Refusals reach the table page with a code and parameters, and the page can say each in both
languages (docs/protocol.md, "Refusal codes"; static/js/refusals.js: English messages, their
Chinese in the djangojs catalog).

The codes are found in the source, not listed here: every ``refuse(...)`` of the engine, every
``Refused(reason, code, ...)`` and ``Refused`` subclass of the platform, and every frame the table
socket builds with ``refused_frame``, ``refused_at`` and ``error_frame`` (games/wire/frames.py).
"""

from __future__ import annotations

import ast
import json
import re
import string
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async

from games.models import Hand
from tests.js_words import LOCALE, run_in_node
from tests.platform.live_helpers import started_rigged
from tests.platform.test_i18n import read_po
from tests.platform.test_protocol_v2_sockets import V2Client

ROOT = Path(__file__).resolve().parents[2]
REFUSALS_JS = ROOT / "static" / "js" / "refusals.js"
ANY = "*"


def _name(func: ast.expr) -> str | None:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def sent_codes() -> dict[str, set[str]]:
    """Every code the server can send, with the parameter names the sites give it."""
    codes: dict[str, set[str]] = {}
    for path in sorted((ROOT / "games").rglob("*.py")):
        if "loadtest" in path.parts:
            continue  # the load test's reference server speaks for itself
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(_name(b) == "Refused" for b in node.bases):
                for stmt in node.body:
                    if isinstance(stmt, ast.Assign) and [ast.unparse(t) for t in stmt.targets] == ["code"]:
                        codes.setdefault(ast.literal_eval(stmt.value), set())
            if not isinstance(node, ast.Call):
                continue
            name, args = _name(node.func), node.args
            at = {"refuse": 0, "Refused": 1, "refused_frame": 1, "error_frame": 1, "refused_at": 2}.get(name or "")
            if at is None or len(args) <= at or not isinstance(args[at], ast.Constant):
                continue
            params = codes.setdefault(args[at].value, set())
            if name == "refuse":
                params.update(k.arg for k in node.keywords if k.arg)
            elif len(args) > at + 1 and isinstance(args[at + 1], ast.Dict):
                params.update(ast.literal_eval(k) for k in args[at + 1].keys if k is not None)
            elif len(args) > at + 1:
                params.add(ANY)  # built elsewhere (holds.shortfall): not checked here
    return codes


def translations() -> dict[str, dict[str, str]]:
    """Per language, code -> template: the English messages of refusals.js's ``TEXTS`` and
    their Chinese from the djangojs catalog."""
    text = REFUSALS_JS.read_text(encoding="utf-8")
    block = re.search(r"\nconst TEXTS = \{\n(.*?)\n\};", text, re.S)
    assert block, "refusals.js has its TEXTS"
    entry = re.compile(r'^  (\w+): (?:gettext\((".*")\)|pgettext\((".*"), (".*")\)),$')
    lines = block[1].split("\n")
    found = [entry.match(line) for line in lines]
    assert all(found), [line for line, m in zip(lines, found, strict=True) if not m]
    catalog = read_po(LOCALE / "djangojs.po")
    out: dict[str, dict[str, str]] = {"zh": {}, "en": {}}
    for m in found:
        assert m is not None
        context = json.loads(m[3]) if m[3] else None
        msgid = json.loads(m[2] or m[4])
        out["en"][m[1]] = msgid
        out["zh"][m[1]] = catalog.get(f"{context}\x04{msgid}" if context else msgid, "")
    return out


def test_every_code_the_server_sends_has_both_translations() -> None:
    codes, words = sent_codes(), translations()
    assert len(codes) > 120
    assert set(words["zh"]) == set(codes), "zh: missing or stale codes"
    assert set(words["en"]) == set(codes), "en: missing or stale codes"
    for lang, table in words.items():
        for code, template in table.items():
            used = {n for _, n, _, _ in string.Formatter().parse(template.replace("'{", "{")) if n}
            if ANY not in codes[code]:
                assert used <= codes[code], f"{lang} {code}: {used - codes[code]} are no parameter of it"


def test_the_english_translation_is_the_engines_text() -> None:
    # For the rules' refusals the page's English is the reason the engine gives, to the letter.
    from tests.engine.test_refusals import CODES

    en = translations()["en"]
    for code, template in CODES.items():
        assert en[code] == template.replace("{verb!r}", "'{verb}'"), code


def render(lang: str, frames: list[dict[str, Any]], tmp: Path) -> list[str]:
    """refusals.js in node on a page in ``lang``, with the catalog the page loads."""
    body = (
        "const {refusalText} = await import(process.argv[1]);"
        "console.log(JSON.stringify(JSON.parse(process.argv[2]).map(refusalText)));"
    )
    return list(run_in_node(lang, REFUSALS_JS, body, frames, tmp))


def test_the_table_page_says_a_refusal_in_either_language(tmp_path: Path) -> None:
    frames = [
        {"code": "not_your_turn", "params": {"seat": "S"}, "reason": "it is S's turn"},
        {"code": "chow_tiles_missing", "params": {"tiles": "46m", "tile": "5m"}, "reason": "..."},
        {"code": "waiting_for_answers", "params": {"tile": "E", "seats": "S, W"}, "reason": "..."},
        {"code": "a_code_from_a_newer_server", "params": {}, "reason": "the English fallback"},
    ]
    assert render("zh-hans", frames, tmp_path) == [
        "轮到南家",
        "手里要有 4万 6万 才能吃 5万",
        "等待 南家、西家 回应 东",
        "the English fallback",
    ]
    assert render("en", frames, tmp_path) == [
        "it is S's turn",
        "you need 46m in hand to chow 5m",
        "waiting for answers on E from S, W",
        "the English fallback",
    ]


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("instant_play")
def test_the_socket_refusal_frame_carries_the_code_and_params() -> None:
    table, hand, users = started_rigged("rc")

    async def scenario() -> list[dict[str, Any]]:
        south = V2Client(table, users[1])
        await south.open()
        await south.pump()
        row = await database_sync_to_async(Hand.objects.get)(pk=hand.pk)
        said = []
        for action, seq in (({"do": "discard", "tile": "C"}, row.seq), ({"do": "pass"}, row.seq - 1)):
            await south.comm.send_json_to({"type": "act", "hand": row.pk, "seq": seq, "action": action})
            said.append(await south.comm.receive_json_from(timeout=5))
        await south.comm.send_json_to(["not", "an", "object"])
        said.append(await south.comm.receive_json_from(timeout=5))
        await south.comm.disconnect()
        return said

    turn, stale, error = async_to_sync(scenario)()
    row = Hand.objects.get(pk=hand.pk)
    assert turn == {
        "type": "refused",
        "seq": row.seq,
        "reason": "it is E's turn",
        "code": "not_your_turn",
        "params": {"seat": "E"},
    }
    assert stale["code"] == "stale_command" and stale["params"] == {"seq": row.seq, "sent": row.seq - 1}
    assert stale["reason"] == f"stale command: the table is at seq {row.seq}, not {row.seq - 1}"
    assert error == {
        "type": "error",
        "reason": "messages are JSON objects",
        "code": "not_a_json_object",
        "params": {},
    }
