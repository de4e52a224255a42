"""Load and faults: real proxies, a real Redis stopped mid-burst, every upstream body checked.

Two ``litellm --config`` proxies on 127.0.0.1 over the same stand-in: one with hygiene
(its provenance store in Redis, the in-process store in front bounded at
:data:`STORE_MAX` entries), one without. A burst of mixed multi-turn requests (Claude and
GPT histories sent to Claude, Mistral and GPT; one in a hundred a 10,000-message
transcript, one a 7.8 MB image) goes to each, :data:`CONCURRENCY` at a time; Redis is
stopped when half of hygiene's burst is done. Shown: zero failed requests, every upstream
body valid for its own target and carrying only its own request's marker, the store
bounded, and the latency with hygiene and without, measured in the same run (printed,
not asserted: the machine is shared). Everything stops by itself; the request count is
``HYGIENE_LOAD_REQUESTS`` (500 by default).

In process, :func:`test_heavy_hygiene_runs_off_the_event_loop` times the loop's longest
stall while the hook transforms a 10,000-message transcript or re-encodes a large image.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis

from litellm_hygiene import HygieneCallback
from tests.support.load import (
    EchoStandIn,
    _big_image,
    burst,
    conversation,
    percentile,
    upstream_problems,
)
from tests.support.payload_recorder import PAYLOAD_FILE
from tests.support.proxy_server import ProxyServer, running_proxies, standin_config
from tests.support.redis_server import RedisServer, redis_server_or_skip

REQUESTS = int(os.environ.get("HYGIENE_LOAD_REQUESTS", "500"))
CONCURRENCY = 50
STORE_MAX = 100
RECORDER = "tests.support.payload_recorder.recorder"


def _config(standin: EchoStandIn, redis_server: RedisServer | None) -> dict[str, Any]:
    if redis_server is None:
        config = standin_config(standin.base_url)
        config["litellm_settings"] = {"callbacks": [RECORDER]}
        return config
    config = standin_config(
        standin.base_url,
        provenance_store="redis",
        redis_host=redis_server.host,
        redis_port=redis_server.port,
        redis_timeout=2.0,  # a stopped Redis refuses at once; a slow start must not fail
        redis_retry_after=2.0,
        store_max_entries=STORE_MAX,
    )
    config["litellm_settings"] = {"callbacks": ["litellm_hygiene.proxy_handler", RECORDER]}
    return config


def _records(server: ProxyServer) -> list[dict[str, Any]]:
    path = server.workdir / PAYLOAD_FILE
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _summary(name: str, result: Any, records: list[dict[str, Any]]) -> str:
    ms = [1000 * s for s in result.latencies]
    stall = max((r["max_stall_ms"] for r in records), default=float("nan"))
    gc_pause = max((r["max_gc_ms"] for r in records), default=float("nan"))
    return (
        f"{name}: {len(result.latencies)} ok, {len(result.failures)} failed, "
        f"p50 {percentile(ms, 0.5):.0f} ms, p95 {percentile(ms, 0.95):.0f} ms, "
        f"p99 {percentile(ms, 0.99):.0f} ms, {result.throughput:.1f} req/s, "
        f"loop stall max {stall:.0f} ms (longest full GC {gc_pause:.0f} ms)"
    )


@pytest.fixture(scope="module")
def stack() -> Iterator[tuple[EchoStandIn, RedisServer, ProxyServer, ProxyServer]]:
    standin = EchoStandIn()
    with redis_server_or_skip() as redis_server, standin:
        hygiene = ProxyServer("load-hygiene", _config(standin, redis_server))
        plain = ProxyServer("load-plain", _config(standin, None))
        with running_proxies([hygiene, plain]):
            yield standin, redis_server, hygiene, plain


@pytest.mark.slow  # 500 requests through two proxies and Redis: CI's slow step
def test_a_burst_with_redis_stopped_midway(
    stack: tuple[EchoStandIn, RedisServer, ProxyServer, ProxyServer],
    request: pytest.FixtureRequest,
) -> None:
    standin, redis_server, hygiene, plain = stack
    requests = [conversation(i) for i in range(REQUESTS)]
    keys_seen: list[str] = []

    async def stop_redis_midway(done: int) -> None:
        if done == REQUESTS // 2:
            keys_seen.extend(_redis_keys(redis_server))
            await asyncio.to_thread(redis_server.stop)

    standin.bodies.clear()
    with_hygiene = asyncio.run(burst(hygiene, requests, CONCURRENCY, stop_redis_midway))
    bodies = list(standin.bodies)
    standin.bodies.clear()
    without = asyncio.run(burst(plain, requests, CONCURRENCY))

    assert not redis_server.running
    assert with_hygiene.failures == [], with_hygiene.failures[:5]
    assert without.failures == [], without.failures[:5]
    assert len(bodies) == REQUESTS
    assert upstream_problems(bodies) == []
    # The Redis keys are hashes (kind:128 bits of SHA-256), never ids or text.
    assert keys_seen and all(
        re.fullmatch(r"litellm_hygiene:prov:[a-z_]+:[0-9a-f]{32}", key) for key in keys_seen
    ), keys_seen[:3]
    records = _records(hygiene)
    entries = [r["store_entries"] for r in records if r["store_entries"] is not None]
    assert entries and max(entries) <= STORE_MAX  # every answer added keys; the bound held
    assert max(entries) == STORE_MAX
    summaries = [r["spend_logs_metadata"]["litellm_hygiene_summary"] for r in records]
    assert summaries.count("changed") > REQUESTS // 2
    _print(
        request,
        f"load test, {REQUESTS} requests, {CONCURRENCY} at a time, Redis stopped at "
        f"{REQUESTS // 2}; {len(keys_seen)} Redis keys checked; store entries max "
        f"{max(entries)} (bound {STORE_MAX})",
        _summary("  with hygiene   ", with_hygiene, records),
        _summary("  without hygiene", without, _records(plain)),
    )


def _redis_keys(server: RedisServer) -> list[str]:
    client = redis.Redis(host=server.host, port=server.port, decode_responses=True)
    try:
        return [str(key) for key in client.scan_iter(count=1000)]
    finally:
        client.close()


def _print(request: pytest.FixtureRequest, *lines: str) -> None:
    plugins = request.config.pluginmanager
    reporter = plugins.get_plugin("terminalreporter")
    capture = plugins.get_plugin("capturemanager")
    if reporter is None or capture is None:
        return
    with capture.global_and_fixture_disabled():
        reporter.write_line("")
        for line in lines:
            reporter.write_line(line)


# -- the event loop stays free (in process) ---------------------------------------------


class _Watch:
    """The loop's stalls, and the full collections (which stop every thread) beside them."""

    def __init__(self) -> None:
        self.gaps: list[tuple[float, float]] = []
        self.collections: list[tuple[float, float]] = []
        self._gc_start = 0.0

    def on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if info.get("generation") != 2:
            return
        if phase == "start":
            self._gc_start = time.perf_counter()
        else:
            self.collections.append((self._gc_start, time.perf_counter()))

    async def tick(self, stop: asyncio.Event) -> None:
        last = time.perf_counter()
        while not stop.is_set():
            await asyncio.sleep(0.002)
            now = time.perf_counter()
            self.gaps.append((last, now))
            last = now

    def longest_stall(self, *, without_gc: bool) -> float:
        """The longest gap between ticks, less the time full collections took in it."""
        longest = 0.0
        for start, end in self.gaps:
            gap = end - start - 0.002
            if without_gc:
                gap -= sum(max(0.0, min(end, b) - max(start, a)) for a, b in self.collections)
            longest = max(longest, gap)
        return longest


HEAVY: dict[str, tuple[str, Callable[[], list[dict[str, Any]]]]] = {
    "10,000 messages, Claude to Mistral": (
        "mistral/mistral-large-latest",
        lambda: conversation(HEAVY_NUMBER, heavy=True)[1],
    ),
    "7.8 MB image to Claude": (
        "anthropic/claude-sonnet-4-5",
        lambda: [
            {
                "role": "user",
                "content": [{"type": "image_url", "image_url": {"url": _big_image(1)}}],
            }
        ],
    ),
}
HEAVY_NUMBER = 50  # conversation(50) is the 10,000-message one


@pytest.mark.parametrize("case", sorted(HEAVY))
async def test_heavy_hygiene_runs_off_the_event_loop(
    case: str, request: pytest.FixtureRequest
) -> None:
    model, build = HEAVY[case]
    messages = build()
    callback = HygieneCallback()
    watch, stop = _Watch(), asyncio.Event()
    ticker = asyncio.create_task(watch.tick(stop))
    gc.callbacks.append(watch.on_gc)
    try:
        await asyncio.sleep(0.01)
        started = time.perf_counter()
        new = await callback.async_pre_call_deployment_hook(
            {"model": model, "messages": messages, "litellm_call_id": "h"}, "acompletion"
        )
        took = time.perf_counter() - started
    finally:
        stop.set()
        await ticker
        gc.callbacks.remove(watch.on_gc)
    report = callback.report_for("h")
    assert new is not None and report is not None and report.changes, report
    own = watch.longest_stall(without_gc=True)
    # Were the work on the loop, the loop would stall for about all of `took`; on a
    # worker thread it only waits for the interpreter lock now and then, each time for as
    # long as one C call that keeps the lock (a base64 pass over the image) runs: 10-20 %
    # of `took` on a quiet machine, up to 27 % seen on a busy one. Half tells the two apart.
    assert own < 0.5 * took, (own, took)
    _print(
        request,
        f"{case}: hook {1000 * took:.0f} ms; loop stall max {1000 * own:.0f} ms "
        f"({1000 * watch.longest_stall(without_gc=False):.0f} ms counting "
        f"{len(watch.collections)} full collections)",
    )
