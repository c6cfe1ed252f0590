"""浙东得 (SPEC.md D1): ``rules.py`` the Variant, ``scoring.py`` the 和 points, 番 and 腊子."""

from games.engine.variants.zhedong_de.rules import ZhedongDe

__all__ = ["ZhedongDe"]
