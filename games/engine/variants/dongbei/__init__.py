"""东北麻将 (SPEC.md D4): ``rules.py`` the Variant, ``hands.py`` the hand shapes and 番 patterns,
``scoring.py`` the settlement."""

from games.engine.variants.dongbei.rules import Dongbei

__all__ = ["Dongbei"]
