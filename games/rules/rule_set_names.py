"""Each rule set's name in the reader's language.

The engine's ``display_name`` is the Chinese name (the engine knows no languages); every page,
the API and the table's frames take the name from here so that an English reader sees an
English name. A rule set missing here falls back to the engine's name (and a test fails).
"""

from __future__ import annotations

from games.engine import get_variant
from games.rules.option_text import W, Words

NAMES: dict[str, Words] = {
    "zhejiang_caishen": W("财神麻将（前导牌）", "Caishen Mahjong (indicator tile)"),
    "wenzhou": W("温州麻将", "Wenzhou Mahjong"),
    "zhedong_de": W("浙东得麻将（腊子）", "Zhedong De Mahjong (Lazi)"),
    "zhangzhou": W("漳州麻将", "Zhangzhou Mahjong"),
    "dongbei": W("东北麻将", "Northeast Mahjong"),
}


def rule_set_name(key: str) -> str:
    """The rule set's name in the active language; its key if no rule set has that key."""
    words = NAMES.get(key)
    if words is not None:
        return words.text()
    try:
        return get_variant(key).display_name
    except ValueError:
        return key
