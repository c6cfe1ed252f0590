"""The scaled mode on the options that are not its defaults: channels-redis's queue-per-socket
layer (``CAISHEN_CHANNEL_LAYER=core``), every timer in Celery (``CAISHEN_LOCAL_TIMERS_UPTO=0``) and
PostgreSQL's server-side binding with prepared statements (``DJANGO_DB_SERVER_SIDE_BINDING=1``):
the same tests as on the defaults (pub/sub layer, short deadlines in the web processes), on a
topology of this module's own.  Turn timeouts (5 s) stay with the Celery worker.

* a full match through two daphne processes, timeouts by the Celery worker, settlement by Celery
  (test_scaled_match.py);
* Redis restarted mid-match (test_faults_processes.py): the players must still resync and every
  step apply once.

The tests are imported, so pytest runs them here with this module's fixtures.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.integration.conftest import RedisServer, Topology, fresh_database, private_vhost, running_topology
from tests.integration.test_faults_processes import test_a_redis_restart_mid_match_loses_nothing  # noqa: F401
from tests.integration.test_scaled_match import (  # noqa: F401
    played_match,
    test_full_match_across_two_daphne_processes,
    test_healthz_reports_every_dependency,
)

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def private_topology(
    private_redis: RedisServer, rabbitmq_up: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Topology]:
    """As conftest's ``private_topology`` (fresh database, this module's Redis, RabbitMQ as the
    broker, on a virtual host of its own), on the core layer, every timer in Celery."""
    with (
        fresh_database() as database_url,
        private_vhost(rabbitmq_up) as broker_url,
        running_topology(
            database_url,
            private_redis.url,
            tmp_path_factory.mktemp("core"),
            broker_url=broker_url,
            CAISHEN_CHANNEL_LAYER="core",
            CAISHEN_LOCAL_TIMERS_UPTO="0",
            DJANGO_DB_SERVER_SIDE_BINDING="1",
        ) as topo,
    ):
        yield topo


@pytest.fixture(scope="module")
def topology(private_topology: Topology) -> Topology:
    """The scaled-match tests' topology is this module's."""
    return private_topology


def test_the_processes_run_the_core_layer(private_topology: Any) -> None:
    got = private_topology.manage(
        "from django.conf import settings\n"
        "import json\n"
        "print('RESULT ' + json.dumps(settings.CHANNEL_LAYERS['default']['BACKEND']))"
    )
    assert got == "channels_redis.core.RedisChannelLayer"
