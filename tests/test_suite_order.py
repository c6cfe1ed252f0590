"""The suite's run order (tests/conftest.py): the modules with the longest tests first, each
module in one piece and in its own order."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

import pytest

from tests.conftest import longest_first


@dataclass
class FakeItem:
    nodeid: str
    marks: set[str] = field(default_factory=set)

    def get_closest_marker(self, name: str) -> Any:
        return name if name in self.marks else None


def test_slow_modules_first_then_integration_then_browser_then_the_rest() -> None:
    items = [
        FakeItem("tests/engine/test_a.py::one"),
        FakeItem("tests/e2e/test_b.py::one", {"e2e"}),
        FakeItem("tests/engine/test_a.py::two"),
        FakeItem("tests/platform/test_c.py::fast"),
        FakeItem("tests/platform/test_c.py::long", {"slow"}),
        FakeItem("tests/integration/test_d.py::one@rabbitmq", {"integration"}),
    ]
    ordered = longest_first(cast(list[pytest.Item], items))
    assert [item.nodeid for item in ordered] == [
        # A module goes where its longest test goes, and stays in one piece in its own order.
        "tests/platform/test_c.py::fast",
        "tests/platform/test_c.py::long",
        "tests/integration/test_d.py::one@rabbitmq",
        "tests/e2e/test_b.py::one",
        "tests/engine/test_a.py::one",
        "tests/engine/test_a.py::two",
    ]
