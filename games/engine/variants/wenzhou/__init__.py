"""温州麻将 (SPEC.md D2): ``rules.py`` the Variant, ``hands.py`` the hand analysis, ``scoring.py`` the settlement."""

from games.engine.variants.wenzhou.rules import Wenzhou

__all__ = ["Wenzhou"]
