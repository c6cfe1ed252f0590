"""The registry of rule sets.  Each variant module registers one ``Variant``."""

from __future__ import annotations

from games.engine.variants.base import Variant

_REGISTRY: dict[str, Variant] = {}


def register(variant: Variant) -> Variant:
    if variant.key in _REGISTRY:
        raise ValueError(f"variant {variant.key!r} registered twice")
    _REGISTRY[variant.key] = variant
    return variant


def _load() -> None:
    # Imported for their side effect of registering; kept here so that importing
    # the registry is enough to see every rule set.
    from games.engine.variants import zhejiang_caishen  # noqa: F401


def get_variant(key: str) -> Variant:
    if not _REGISTRY:
        _load()
    try:
        return _REGISTRY[key]
    except KeyError:
        raise ValueError(f"unknown variant {key!r}; known: {', '.join(sorted(_REGISTRY))}") from None


def all_variants() -> list[Variant]:
    if not _REGISTRY:
        _load()
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]
