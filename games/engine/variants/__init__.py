"""The registry of rule sets.  Each variant module registers one ``Variant``."""

from __future__ import annotations

import importlib
import importlib.util

from games.engine.variants.base import Variant

_REGISTRY: dict[str, Variant] = {}
_loaded = False


def register(variant: Variant) -> Variant:
    if variant.key in _REGISTRY:
        raise ValueError(f"variant {variant.key!r} registered twice")
    _REGISTRY[variant.key] = variant
    return variant


# One module per rule set (SPEC.md D0..D4), imported for its side effect of registering.
# A module not written yet is skipped, so rule sets can land one at a time.
VARIANT_MODULES = ("zhejiang_caishen", "zhedong_de", "wenzhou", "zhangzhou", "dongbei")


def _load() -> None:
    """Import every rule set once.  Not "while the registry is empty": a module imported
    directly first (a bot reading one rule set's verbs) registers itself alone."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    for name in VARIANT_MODULES:
        module = f"games.engine.variants.{name}"
        if importlib.util.find_spec(module) is not None:
            importlib.import_module(module)


def get_variant(key: str) -> Variant:
    _load()
    try:
        return _REGISTRY[key]
    except KeyError:
        raise ValueError(f"unknown variant {key!r}; known: {', '.join(sorted(_REGISTRY))}") from None


def all_variants() -> list[Variant]:
    _load()
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]
