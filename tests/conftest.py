"""Shared test configuration.

pytest-django reads DJANGO_SETTINGS_MODULE from pyproject.toml; engine tests need no database and
run without one.  Keep this file small: fixtures belong next to the tests that use them.
"""

import os
from collections.abc import Iterator

import pytest
from hypothesis import settings as hypothesis_settings

# Hypothesis profiles.  "ci" (CAISHEN_HYPOTHESIS_PROFILE=ci, which .ci/run sets, or CI=true): the
# same examples on every run (derandomized, so a red CI run is reproduced by running it again,
# and no example database to carry over), the full counts.  "dev" (everywhere else): fresh
# random examples each run, fewer of them, for the edit loop.  Loaded here, before any test
# module is imported, so that every @settings(...) in the tests inherits from it.
hypothesis_settings.register_profile("ci", derandomize=True, database=None, print_blob=True, max_examples=100)
hypothesis_settings.register_profile("dev", max_examples=30)
HYPOTHESIS_PROFILE = os.environ.get("CAISHEN_HYPOTHESIS_PROFILE") or (
    "ci" if os.environ.get("CI", "").lower() == "true" else "dev"
)
hypothesis_settings.load_profile(HYPOTHESIS_PROFILE)


def hypothesis_examples(ci: int, dev: int) -> int:
    """A property's example count under the loaded profile: ``ci`` in CI, ``dev`` in the edit loop."""
    return ci if HYPOTHESIS_PROFILE == "ci" else dev


# The markers follow what a test uses, so that no test can slip out of its tier by a forgotten
# mark: one that asks for a browser (tests/e2e/conftest.py) is `e2e`, one that asks for a running
# service (tests/integration/conftest.py: PostgreSQL, Redis, RabbitMQ and the processes on them)
# is `integration`.  Fixtures reach these transitively (`topology` asks for `services_up`), and
# item.fixturenames holds the closure.
BROWSER_FIXTURES = frozenset({"server", "chromium"})
SERVICE_FIXTURES = frozenset({"services_up", "rabbitmq_up"})


@pytest.hookimpl(tryfirst=True)  # before xdist reads the xdist_group marks (--dist loadgroup)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        if used & BROWSER_FIXTURES:
            item.add_marker(pytest.mark.e2e)
        if used & SERVICE_FIXTURES:
            item.add_marker(pytest.mark.integration)
        group = shared_state_group(item)
        if group:
            item.add_marker(pytest.mark.xdist_group(group))
            if getattr(config.option, "loadgroup", False):  # set in xdist's workers
                name_group(item, group)
    items[:] = longest_first(items)


# How long a test usually takes, by its marks: `slow` (more than about 5 s alone), then the
# integration tests (processes on real services), then the browser's, then the rest.
def _rank(item: pytest.Item) -> int:
    for rank, mark in enumerate(("slow", "integration", "e2e")):
        if item.get_closest_marker(mark) is not None:
            return rank
    return 3


def longest_first(items: list[pytest.Item]) -> list[pytest.Item]:
    """The modules with the longest tests first, each module's tests kept together in their order.

    xdist hands tests out in this order, so the long ones start early and the short ones fill the
    workers at the end, instead of one long test running alone while the others are done.  A
    module stays in one piece so that its module-scoped fixtures are built once per worker.
    (pytest-django then sorts by database use — plain, transactional, none — keeping this order
    within each.)
    """
    module_rank: dict[str, int] = {}
    for item in items:
        module = item.nodeid.split("::")[0]
        module_rank[module] = min(module_rank.get(module, 3), _rank(item))
    order = {id(item): i for i, item in enumerate(items)}
    return sorted(items, key=lambda item: (module_rank[item.nodeid.split("::")[0]], order[id(item)]))


def name_group(item: pytest.Item, group: str) -> None:
    """Append ``@group`` to the test's id, which is how xdist's controller learns the groups.

    pytest-xdist does this itself by rewriting ``item._nodeid``, which pytest 9.2 no longer
    reads: its ids are ``NodeId`` objects in ``item._id``.  There, do it here (xdist's own
    rewrite then changes nothing); on a pytest that still reads ``_nodeid``, leave it to xdist.
    """
    try:
        from _pytest.nodeid import NodeId
    except ImportError:
        return
    if isinstance(getattr(item, "_id", None), NodeId) and "@" not in item.nodeid:
        item._id = NodeId.parse(f"{item.nodeid}@{group}")  # type: ignore[attr-defined]


def shared_state_group(item: pytest.Item) -> str | None:
    """The xdist group of a test that shares an expensive fixture with others, so that one
    worker builds it once and runs them all (scripts/test.sh runs `--dist loadgroup`).

    The tests on RabbitMQ are one group: they start the private topologies of tests/integration
    (each with its own database, Redis server and virtual host, so they could run side by side),
    four to eight processes each, and one at a time keeps a small machine from being starved by
    them.  The session's scaled topology (tests/integration/conftest.py: four processes on
    PostgreSQL and a Redis server of the run's own) is another.  A module-scoped fixture (a
    module's private topology and Redis, a self-play run of thousands of hands, a browser's walk
    of the site) groups its module's tests, one group per parameter of it where it is
    parametrized; tests of other modules still run beside them.  Everything else is spread test
    by test.
    """
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    scopes = {name: defs[-1].scope for name, defs in info.name2fixturedefs.items() if defs}
    if "rabbitmq_up" in item.fixturenames:
        return "rabbitmq"
    if scopes.get("topology") == "session":
        return "topology"
    shared = sorted(name for name in item.fixturenames if scopes.get(name) == "module")
    if not shared:
        return None
    callspec = getattr(item, "callspec", None)
    params = [f"{name}{callspec.indices[name]}" for name in shared if callspec and name in callspec.indices]
    return "-".join([item.nodeid.split("::")[0], *params])


@pytest.fixture(autouse=True)
def _fresh_process() -> Iterator[None]:
    """Each test starts in a fresh process (games.runtime.process): no remembered frames, engines,
    views or names — the database is emptied between tests and hand ids repeat, which never
    happens in a deployment — and not overloaded, serving no table (a socket test's event loop
    binds the real probe, and its table steps, slow on a busy test machine, would otherwise leak
    into the next tests)."""
    from games.runtime.process import runtime

    runtime().reset()
    yield
