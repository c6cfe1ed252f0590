"""Two topologies on one machine, as two runs of the suite would start them, do not touch each
other: each has its own database, Redis server and RabbitMQ virtual host (conftest.py), so a
frame published on one reaches no socket of the other, and a Celery task or control message sent
through one reaches only its own worker."""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.integration.conftest import Topology, fresh_database, private_vhost, running_redis, running_topology
from tests.polling import wait_until

pytestmark = [pytest.mark.integration, pytest.mark.slow]

# Run inside one topology (Topology.manage): ping the workers its broker reaches, and queue a
# wake-up for a hand that does not exist (a no-op) under a task id the test can find in the logs.
PING_AND_SEND = """
import json
from mahjong_platform.celery import app
replies = app.control.ping(timeout=3)
app.send_task("games.wake", args=("hand", 0, 0), task_id={task_id!r})
print("RESULT " + json.dumps([name for reply in replies for name in reply]))
"""


@contextlib.contextmanager
def own_topology(rabbitmq: str, var: Path) -> Iterator[Topology]:
    """A topology as a run of the suite makes its own: a fresh database, a ``redis-server`` on a
    free port, a RabbitMQ virtual host as the broker."""
    with (
        fresh_database() as database_url,
        running_redis(var / "redis.log") as redis,
        private_vhost(rabbitmq) as broker_url,
        running_topology(database_url, redis.url, var, broker_url=broker_url) as topo,
    ):
        yield topo


async def delivered(sender: str, receivers: list[str]) -> list[bool]:
    """A message published on ``sender``'s Redis to a group every receiver's layer subscribed
    to: which receivers got it (each waits up to 3 s)."""
    from channels_redis.pubsub import RedisPubSubChannelLayer

    group = f"isolation-{uuid.uuid4().hex[:8]}"
    layers = [RedisPubSubChannelLayer(hosts=[url]) for url in receivers]
    channels = []
    for layer in layers:
        channel = await layer.new_channel()
        await layer.group_add(group, channel)
        channels.append(channel)
    sending = RedisPubSubChannelLayer(hosts=[sender])
    await sending.group_send(group, {"type": "probe", "from": sender})
    got = []
    for layer, channel in zip(layers, channels, strict=True):
        try:
            message = await asyncio.wait_for(layer.receive(channel), 3)
            got.append(message == {"type": "probe", "from": sender})
        except TimeoutError:
            got.append(False)
    for layer in [*layers, sending]:
        await layer.flush()
    return got


def logged(log: Path, text: str) -> Callable[[], bool]:
    return lambda: text in log.read_text(errors="replace")


def test_two_topologies_on_one_machine_do_not_touch_each_other(
    rabbitmq_up: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    with (
        own_topology(rabbitmq_up, tmp_path_factory.mktemp("first")) as first,
        own_topology(rabbitmq_up, tmp_path_factory.mktemp("second")) as second,
    ):
        both = (first, second)
        assert len({t.env["DATABASE_URL"] for t in both}) == 2

        # The channel layer: a frame published on one topology's Redis reaches its own
        # subscribers only (Redis pub/sub ignores the database index: two databases of one
        # server would cross-deliver).
        urls = [t.env["REDIS_URL"] for t in both]
        assert asyncio.run(delivered(urls[0], urls)) == [True, False]
        assert asyncio.run(delivered(urls[1], urls)) == [False, True]

        # The broker: a ping reaches one worker (both are named worker@<this host>), and a task
        # is run by the worker of the topology that sent it only.
        task_ids = [f"isolation-{uuid.uuid4().hex}" for _ in both]
        for topo, task_id in zip(both, task_ids, strict=True):
            assert len(topo.manage(PING_AND_SEND.format(task_id=task_id))) == 1
        for topo, own, other in ((first, task_ids[0], task_ids[1]), (second, task_ids[1], task_ids[0])):
            log = topo.processes["worker"].log
            wait_until(logged(log, own), timeout=30, interval=0.2)
            assert other not in log.read_text(errors="replace"), "a task of the other topology ran here"

        # Each still serves: the other's start, work and checks did not disturb it.
        for topo in both:
            for web in ("web1", "web2"):
                status, body = topo.healthz(web)
                assert status == 200, json.dumps(body)
