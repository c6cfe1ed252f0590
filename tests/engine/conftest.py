"""Every refusal any engine test reaches must carry a stable code (tests/engine/test_refusals.py).

``Hand.refusal`` is the one funnel every validated action goes through (``Hand.apply`` asks it),
so a check there sees each refusal the engine suite provokes: the rule sets' own tests reach
most of their refusals by name.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from games.engine.hand import Hand
from games.engine.refusals import CODE_PATTERN, Refusal
from games.engine.state import Action

_REFUSAL = Hand.refusal


def _checked_refusal(self: Hand, action: Action) -> Any:
    reason = _REFUSAL(self, action)
    if reason is not None:
        assert isinstance(reason, Refusal), f"{self.variant.key}: {action} refused without a code: {reason!r}"
        assert CODE_PATTERN.fullmatch(reason.code), reason.code
    return reason


@pytest.fixture(autouse=True)
def _refusals_carry_codes(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(Hand, "refusal", _checked_refusal)
    yield
