"""The table page without a browser: the template wires the snapshot, the socket and the modules.

The browser test (test_browser_play.py) plays through this page; these checks run everywhere,
also where chromium is missing.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from games import services

JS = Path(__file__).resolve().parents[2] / "static" / "js"


@pytest.fixture
def table_and_owner(db: Any) -> tuple[Any, Any]:
    owner = get_user_model().objects.create_user("owner", password="pw-123456")
    table = services.create_table(owner, "zhejiang_caishen", {}, stake=3, hands_total=1)
    return table, owner


def test_the_page_embeds_the_snapshot_and_loads_the_table_module(client: Any, table_and_owner: Any) -> None:
    table, owner = table_and_owner
    client.force_login(owner)
    res = client.get(f"/tables/{table.pk}/")
    assert res.status_code == 200
    html = res.content.decode()
    assert f'data-ws-path="/ws/table/{table.pk}/"' in html
    assert f'data-user-id="{owner.pk}"' in html
    assert re.search(r'<script type="module" src="[^"]*js/table\.js"', html)
    state = json.loads(re.search(r'<script id="initial-state" type="application/json">(.*?)</script>', html, re.S)[1])
    assert state["table"]["id"] == table.pk
    assert state["table"]["stake"] == 3
    assert len(state["seats"]) == 4
    assert 'id="mj-stage"' in html


def test_a_watcher_gets_the_page_without_a_user(client: Any, table_and_owner: Any) -> None:
    table, _ = table_and_owner
    html = client.get(f"/tables/{table.pk}/").content.decode()
    assert 'data-user-id=""' in html


def test_every_module_import_resolves() -> None:
    """No build step: a wrong relative import would only show in the browser, so check them here."""
    modules = sorted(JS.glob("*.js"))
    assert {"table.js", "tiles.js", "net.js", "board.js"} <= {m.name for m in modules}
    for module in modules:
        for name in re.findall(r'^import .* from "(\./[^"]+)";', module.read_text(), re.M):
            assert (module.parent / name).is_file(), f"{module.name} imports missing {name}"


def test_tiles_are_drawn_not_unicode_glyphs() -> None:
    source = (JS / "tiles.js").read_text()
    assert not re.search(r"[\U0001F000-\U0001F02B]", source), "Unicode mahjong glyphs render as boxes"
    for face in ["萬", "東", "南", "西", "北", "中", "發", "春", "菊"]:
        assert face in source
