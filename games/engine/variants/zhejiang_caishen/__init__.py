"""浙江财神 (SPEC.md D0), the worked example: ``rules.py`` holds the Variant and its scoring."""

from games.engine.variants.zhejiang_caishen.rules import ZhejiangCaishen

__all__ = ["ZhejiangCaishen"]
