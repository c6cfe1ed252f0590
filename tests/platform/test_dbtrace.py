"""The database thread's trace (CAISHEN_DB_TRACE, games/runtime/dbtrace.py): one line per call,
with its lane, its queue wait and run times in order, and the synchronous function's name."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from asgiref.sync import SyncToAsync, sync_to_async

from games.runtime import dbqueue, dbtrace


def slow_read() -> str:
    time.sleep(0.02)
    return "read"


def timer_step() -> str:
    return "step"


def test_each_call_is_traced_with_its_lane_times_and_name(tmp_path: Path) -> None:
    path = tmp_path / "db.trace"
    executor = dbqueue.laned_executor(str(path))
    saved = SyncToAsync.single_thread_executor
    SyncToAsync.single_thread_executor = executor
    try:

        async def run() -> list[str]:
            first = asyncio.ensure_future(sync_to_async(slow_read, thread_sensitive=True)())
            await asyncio.sleep(0.005)  # the read is running: the next two queue behind it
            second = asyncio.ensure_future(sync_to_async(slow_read, thread_sensitive=True)())
            with dbqueue.urgent():
                third = asyncio.ensure_future(sync_to_async(timer_step, thread_sensitive=True)())
            return list(await asyncio.gather(first, second, third))

        assert asyncio.run(run()) == ["read", "read", "step"]
        dbtrace.FLUSH_EVERY, saved_flush = 1, dbtrace.FLUSH_EVERY
        try:
            executor.submit(lambda: None).result()  # one more line: the batch is written
        finally:
            dbtrace.FLUSH_EVERY = saved_flush
    finally:
        SyncToAsync.single_thread_executor = saved
        executor.shutdown()
    lines = [line.split() for line in path.read_text().splitlines()]
    calls = [(fields[3], fields[4]) for fields in lines[:3]]
    # The urgent timer step ran before the read queued ahead of it.
    assert calls == [("n", "slow_read"), ("u", "timer_step"), ("n", "slow_read")]
    for fields in lines:
        enqueued, started, finished = map(float, fields[:3])
        assert enqueued <= started <= finished
    read_started, read_finished = float(lines[0][1]), float(lines[0][2])
    assert read_finished - read_started >= 0.019  # the run time, not the wait
    assert float(lines[1][1]) - float(lines[1][0]) > 0.005  # the step waited behind the running read


def test_without_a_path_nothing_is_wrapped() -> None:
    queue = dbqueue.LanedQueue()
    item = object()
    queue.put(item)
    assert queue.get() is item
