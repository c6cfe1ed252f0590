"""The registry of rule sets: the five rule-set packages, imported by name and registered here.

The registry is static.  Python imports a package before any module inside it, so whichever
rule-set module a process imports first (a bot reading one rule set's verbs, a test importing
one rule set's helpers), this module has run to the end and registered all five.  The packages
never import this module to register themselves: each defines its ``Variant`` class in
``<key>/rules.py`` and this module makes the one instance.  Adding a rule set is one line in
``_VARIANTS`` (and its import); see docs/engine.md.
"""

from __future__ import annotations

from typing import Final

from games.engine.variants.base import Variant
from games.engine.variants.dongbei import Dongbei
from games.engine.variants.wenzhou import Wenzhou
from games.engine.variants.zhangzhou import Zhangzhou
from games.engine.variants.zhedong_de import ZhedongDe
from games.engine.variants.zhejiang_caishen import ZhejiangCaishen

__all__ = ["VARIANT_MODULES", "Variant", "all_variants", "get_variant", "register"]

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
