"""The registry of rule sets: the five rule-set packages, imported by name and registered here.

The registry is static.  Python imports a package before any module inside it, so whichever
rule-set module a process imports first (a bot reading one rule set's verbs, a test importing
one rule set's helpers), this module has run to the end and registered all five.  The packages
never import this module to register themselves: each defines its ``Variant`` class in
``<key>/rules.py`` and this module makes the one instance.  Adding a rule set is one line in
``_VARIANTS`` (and its import); see docs/engine.md.

The registry also loads saved hands (:func:`load_hand`): a snapshot names its rule set by key,
and only the registry knows the keys, so the hand machine itself never imports a rule set.
"""

from __future__ import annotations

from typing import Any, Final

from games.engine.hand import Hand
from games.engine.variants.base import Variant
from games.engine.variants.dongbei import Dongbei
from games.engine.variants.wenzhou import Wenzhou
from games.engine.variants.zhangzhou import Zhangzhou
from games.engine.variants.zhedong_de import ZhedongDe
from games.engine.variants.zhejiang_caishen import ZhejiangCaishen

__all__ = ["VARIANT_MODULES", "Variant", "all_variants", "current_snapshot", "get_variant", "load_hand", "register"]

_REGISTRY: dict[str, Variant] = {}


def register(variant: Variant) -> Variant:
    """Add one rule set; its key must be new (and, for the five here, is its package's name)."""
    if variant.key in _REGISTRY:
        raise ValueError(f"variant {variant.key!r} registered twice")
    _REGISTRY[variant.key] = variant
    return variant


# One rule set per package, in SPEC.md order (D0..D4).
_VARIANTS: Final[tuple[Variant, ...]] = (ZhejiangCaishen(), ZhedongDe(), Wenzhou(), Zhangzhou(), Dongbei())
for _variant in _VARIANTS:
    register(_variant)

#: The rule-set keys, which are also their package names under games/engine/variants/.
VARIANT_MODULES: Final[tuple[str, ...]] = tuple(v.key for v in _VARIANTS)


def get_variant(key: str) -> Variant:
    try:
        return _REGISTRY[key]
    except KeyError:
        raise ValueError(f"unknown variant {key!r}; known: {', '.join(sorted(_REGISTRY))}") from None


def all_variants() -> list[Variant]:
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]


def load_hand(snapshot: dict[str, Any]) -> Hand:
    """The hand a :meth:`Hand.to_json` snapshot saved (older ones too: :func:`current_snapshot`)."""
    d = current_snapshot(snapshot)
    return Hand.from_json(d, get_variant(d["variant"]))


def current_snapshot(d: dict[str, Any]) -> dict[str, Any]:
    """A :meth:`Hand.to_json` snapshot in today's keys.  One saved before ``ply`` and
    ``open_empty_windows`` were (the platform's hands in progress, the starting points of its
    replays) named the ply ``seq``, and was always played with claim protection on.  One saved
    before the typed rule-set state kept the same fields in an untyped ``extra``: it becomes
    the rule set's ``state`` as :meth:`~games.engine.rule_state.RuleState.to_json` writes it
    (fields the old code had not set take their defaults)."""
    if "ply" in d and "open_empty_windows" in d and "state" in d:
        return d
    out = dict(d)
    if "ply" not in out:
        out["ply"] = out.pop("seq")
    out.setdefault("open_empty_windows", True)
    if "state" not in out:
        out["state"] = get_variant(out["variant"]).state_type.from_json(out.pop("extra")).to_json()
    return out
