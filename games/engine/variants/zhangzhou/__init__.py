"""漳州麻将 (SPEC.md D3): ``rules.py`` the Variant, ``hands.py`` the hand analysis, ``scoring.py`` the settlement."""

from games.engine.variants.zhangzhou.rules import Zhangzhou

__all__ = ["Zhangzhou"]
