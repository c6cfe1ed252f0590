"""Keep it found: a bounded schemathesis run against the REST API's own OpenAPI schema.

The schema (drf-spectacular, /api/schema/) is loaded from the Django WSGI application in process,
and every operation is called with generated data — schemathesis's coverage cases (boundaries:
the maximum and one past it, missing fields, wrong types), valid data and invalid data — as a
signed-in staff user with the session cookie and the CSRF token, like the site's own pages.
Path ids are now and then drawn from seeded objects (a waiting table, a private table, a
finished hand, tournaments, users), so that the views behind the 404 run too; a stateful run
follows the links schemathesis infers between operations (create a table, then open it, sit...).

Asserted, by every check schemathesis has: no 5xx at all, and every answer as the schema says —
a status code it documents, the content type it documents, a body of the documented shape;
refusals of schema-violating input; authentication enforced where the schema requires it.
Fixed budget, derandomized: the same cases every run (the module's constants; about a minute
of wall time on the shared 2-core machine, see EXAMPLES).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from importlib import import_module
from typing import Any

import pytest
import schemathesis
from django.conf import settings as django_settings
from django.contrib import auth
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st

from games import services
from games.engine.variants import all_variants
from games.models import Hand
from tournaments import services as tournament_services

# CAISHEN_FUZZ_COMMITS=1 (tests/integration/test_api_fuzz_postgres.py, on PostgreSQL): every
# request's transaction commits, as in a deployment, so what runs on commit (frames, timers, the
# cache) runs too; the tables are emptied between tests.  Otherwise each test is one transaction,
# rolled back at its end.
COMMITS = os.environ.get("CAISHEN_FUZZ_COMMITS", "") == "1"
pytestmark = pytest.mark.django_db(transaction=COMMITS)

# The budget: generated cases per operation and generation mode (valid, invalid), on top of the
# coverage cases; stateful scenarios and their length.  To dig deeper locally (not in CI):
# CAISHEN_FUZZ_EXAMPLES=200 CAISHEN_FUZZ_SCENARIOS=100 pytest tests/platform/test_api_schemathesis.py
EXAMPLES = int(os.environ.get("CAISHEN_FUZZ_EXAMPLES", "8"))
STATEFUL_SCENARIOS = int(os.environ.get("CAISHEN_FUZZ_SCENARIOS", "10"))
STATEFUL_STEPS = 4

CSRF_TOKEN = "schemathesisCsrfToken0123456789a"  # a 32-character secret, as Django's cookie holds
SESSION_KEY = "schemathesis0signed0in0session00"
WSGI_APP = get_wsgi_application()

# Every check schemathesis has stays on.  One is widened: a request the schema allows may still
# break a rule it cannot state — an unknown rule set, a replay that does not replay, a room code
# nobody holds, a stake the wallet cannot cover — and those are a 400 by design, not a failure.
CONFIG = schemathesis.Config.from_str(
    """
[checks.positive_data_acceptance]
expected-statuses = ["2xx", "400", "401", "403", "404", "409", "429"]
"""
)
# The replay check takes its JSON lines as text: send generated strings as they are.
schemathesis.serializer.alias("application/jsonl", "text/plain")

RESOURCES = (
    ("/api/tables/", "tables"),
    ("/api/hands/", "hands"),
    ("/api/tournaments/", "tournaments"),
    ("/api/account/wallets/", "wallets"),
    ("/api/rulesets/", "rulesets"),
)


@pytest.fixture
def keep_the_test_connection() -> Iterator[None]:
    """Django's WSGI handler closes "old" connections around each request; Django's own test
    client switches that off too: it would close the test's connection, in a transaction it does
    not own, between two requests."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@pytest.fixture
def pytest9_node_id(request: pytest.FixtureRequest) -> None:
    """schemathesis.pytest.from_fixture (4.32) reads and writes ``node._nodeid``, which pytest 9
    no longer has (it is ``nodeid``, read-only): give the node the attribute it expects."""
    request.node._nodeid = request.node.nodeid


@pytest.fixture
def seeded(settings: Any, django_user_model: Any) -> dict[str, list[Any]]:
    """Objects for the ids in paths to find, and the signed-in user's session (under SESSION_KEY)."""
    settings.CAISHEN_BOT_DELAY = 0
    settings.CAISHEN_DISCARD_PAUSE = 0
    settings.CAISHEN_SWEEP_SECONDS = 0
    settings.CAISHEN_SPECTATOR_DELAY = 0
    settings.CAISHEN_TIMERS = "inprocess"
    me = django_user_model.objects.create_user("fuzzer", password="pw-123456", is_staff=True)
    other = django_user_model.objects.create_user("other", password="pw-123456")
    waiting = services.create_table(me, "zhejiang_caishen", {})
    private = services.create_table(other, "wenzhou", {}, is_private=True)
    finished = services.create_table(other, "zhejiang_caishen", {}, hands_total=1)
    services.add_bots(finished.pk, other)  # four bots, no delay: the hand plays out in this call
    hand = Hand.objects.get(table=finished)
    assert hand.status == Hand.FINISHED, "bots alone finish a hand in one step"
    event = tournament_services.create_tournament(me, "Fuzz cup", "zhejiang_caishen", rounds=1)
    tournament_services.open_registration(event.pk, me)
    draft = tournament_services.create_tournament(other, "Draft cup", "dongbei")
    # A signed-in session under a key chosen in advance (see SessionAuth), written as the database
    # backend writes one: a store asked to load an unknown key would pick a random one instead.
    store = import_module(django_settings.SESSION_ENGINE).SessionStore(SESSION_KEY)
    signed_in = {
        auth.SESSION_KEY: str(me.pk),
        auth.BACKEND_SESSION_KEY: "django.contrib.auth.backends.ModelBackend",
        auth.HASH_SESSION_KEY: me.get_session_auth_hash(),
    }
    store.create_model_instance(signed_in).save(force_insert=True)
    return {
        "tables": [waiting.pk, private.pk, finished.pk],
        "hands": [hand.pk],
        "tournaments": [event.pk, draft.pk],
        "wallets": [me.pk, other.pk],
        "rulesets": [v.key for v in all_variants()],
    }


@pytest.fixture
def api_schema(keep_the_test_connection: None, pytest9_node_id: None, seeded: dict[str, list[Any]]) -> Any:
    # Loaded in a fixture, not at import: building the coverage cases takes seconds, which every
    # collection of tests/platform would pay otherwise.
    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", WSGI_APP, config=CONFIG)

    @schema.auth()
    class SessionAuth:
        """The site's own credentials: the session cookie, and the CSRF token DRF wants on unsafe
        methods.  As an auth provider (not plain cookies) they count as explicit credentials: the
        ignored_auth check then also sends signed-in requests without them, and with a forged
        session, and wants a 401 or 403 back."""

        def get(self, case: Any, context: Any) -> str:
            return SESSION_KEY

        def set(self, case: Any, data: str, context: Any) -> None:
            case.cookies = {**(case.cookies or {}), "sessionid": data, "csrftoken": CSRF_TOKEN}
            case.headers = {**(case.headers or {}), "X-CSRFToken": CSRF_TOKEN}

    @schema.hook
    def flatmap_path_parameters(context: Any, path_parameters: dict[str, Any] | None) -> st.SearchStrategy[Any]:
        # Mostly the generated value (an unknown id: the 404s), sometimes a seeded object's.
        known = next((seeded[name] for prefix, name in RESOURCES if context.operation.path.startswith(prefix)), [])
        if not known or not path_parameters or len(path_parameters) != 1:
            return st.just(path_parameters)
        (name,) = path_parameters
        return st.one_of(st.just(path_parameters), st.sampled_from(known).map(lambda value: {name: value}))

    return schema


schema = schemathesis.pytest.from_fixture("api_schema")


@pytest.mark.slow
@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],  # no shrinking: a failure is reported as found
    suppress_health_check=list(HealthCheck),
)
def test_the_api_conforms_to_its_schema(case: Any) -> None:
    case.call_and_validate()


def test_stateful_links_conform_to_the_schema(api_schema: Any) -> None:
    api_schema.as_state_machine().run(
        settings=settings(
            max_examples=STATEFUL_SCENARIOS,
            stateful_step_count=STATEFUL_STEPS,
            derandomize=True,
            database=None,
            deadline=None,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
    )


def test_a_committing_run_is_on_postgresql_and_commits() -> None:
    """CAISHEN_FUZZ_COMMITS=1 is meant for PostgreSQL, each request in a transaction of its own."""
    from django.db import connection

    if COMMITS:
        assert connection.vendor == "postgresql"
        assert not connection.in_atomic_block  # nothing wraps the test: each request commits
    else:
        assert connection.in_atomic_block  # the test's own transaction, rolled back at its end
