"""A load generator for real proxies: mixed multi-turn requests, timed, checked upstream.

This is a test-support module, not a test file; ``tests/e2e/test_load.py`` and
``benchmarks/bench_proxy.py`` share it.

- :class:`EchoStandIn`: the provider stand-in answering every request on its route with a
  canned reply whose text names the request (so each answer has its own fingerprints),
  and logging every body it received, for the checks.
- :func:`conversation`: request ``i``: an agent history recorded with one model (Claude
  or GPT: signed thinking, tool calls, results) sent to a model group of the proxy
  (``claude``, ``mistral`` or ``gpt``), with a marker ``req-000123`` in its first user
  turn and request-unique tool-call ids. Optionally heavy: a 10,000-message transcript,
  or a photo-sized image over Anthropic's 5 MB limit.
- :func:`burst`: ``count`` requests, ``concurrency`` at a time, through the OpenAI SDK;
  per-request latency, failures, wall time.
- :func:`upstream_problems`: each body the stand-in received checked against its own
  target's rules (``tests.standin.rules``) and for markers of other requests.
"""

from __future__ import annotations

import asyncio
import base64
import copy
import io
import json
import random
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import httpx
import openai
from PIL import Image

from benchmarks.transcripts import Source, agent_transcript
from litellm_hygiene._standin import ReceivedRequest, Reply, StandIn, anthropic, openai_chat
from litellm_hygiene._standin.rules import WireApi, violations
from tests.support.proxy_server import MASTER_KEY, ProxyServer

__all__ = [
    "GROUPS",
    "BurstResult",
    "EchoStandIn",
    "burst",
    "conversation",
    "percentile",
    "upstream_problems",
]

Json = dict[str, Any]

GROUPS = ("claude", "mistral", "gpt")
"""The proxy's model groups (``tests.support.proxy_server.standin_config``), in request order."""
MARKER = re.compile(r"req-\d{6}")
HEAVY_EVERY = 100
"""One request in this many carries a 10,000-message transcript, and one a large image."""


class EchoStandIn(StandIn):
    """Answers every request on a route; the answer's text names the request number."""

    def __init__(self) -> None:
        super().__init__()
        self.bodies: list[tuple[str | None, Any]] = []
        self._count = 0
        claude = anthropic.message(anthropic.text("Done."), model="claude-sonnet-4-5", seed="l")
        chat = openai_chat.completion("Done.", model="gpt-4o", seed="l")
        self._replies: dict[str, Reply] = {claude.route: claude, chat.route: chat}

    def answer(self, request: ReceivedRequest) -> Reply:
        reply = self._replies.get(request.route or "")
        if reply is None:
            return super().answer(request)
        with self._lock:
            self._count += 1
            number = self._count
            self.bodies.append((request.route, request.body))
        body = copy.deepcopy(reply.body)
        text = f"Done ({number})."
        if "choices" in body:
            body["choices"][0]["message"]["content"] = text
        else:
            body["content"][0]["text"] = text
        return Reply(route=reply.route, body=body)


def _big_image(seed: int) -> str:
    """A 1,400 x 1,400 noise PNG: about 7.8 MB as base64, over Anthropic's 5 MB."""
    noise = random.Random(seed).randbytes(1400 * 1400 * 3)
    out = io.BytesIO()
    Image.frombytes("RGB", (1400, 1400), noise).save(out, format="PNG", compress_level=1)
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()


def _unique_ids(messages: list[Json], number: int) -> list[Json]:
    """The transcript with every tool-call id made unique to this request."""
    suffix = f"{number:06d}"
    for message in messages:
        for call in message.get("tool_calls") or ():
            call["id"] += suffix
        if message.get("role") == "tool":
            message["tool_call_id"] += suffix
    return messages


def conversation(number: int, *, heavy: bool = True) -> tuple[str, list[Json]]:
    """Request ``number``: its model group and messages (see the module docstring)."""
    group = GROUPS[number % len(GROUPS)]
    sources: tuple[Source, ...] = ("claude", "gpt")
    source = sources[(number // len(GROUPS)) % 2]
    exchanges = 2 + number % 4
    if heavy and number % HEAVY_EVERY == HEAVY_EVERY // 2:
        exchanges = 2_500  # about 10,000 messages
    messages = _unique_ids(agent_transcript(exchanges, source=source, stamp=False), number)
    question: Json = {"role": "user", "content": f"req-{number:06d}: carry on."}
    if heavy and number % HEAVY_EVERY == HEAVY_EVERY // 4:
        image = {"type": "image_url", "image_url": {"url": _big_image(number)}}
        question["content"] = [{"type": "text", "text": question["content"]}, image]
    return group, [messages[0], question, *messages[1:], {"role": "user", "content": "Next?"}]


@dataclass
class BurstResult:
    """What one burst measured."""

    latencies: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def throughput(self) -> float:
        """Completed requests per second of wall time."""
        return len(self.latencies) / self.seconds if self.seconds else 0.0


def percentile(values: Sequence[float], fraction: float) -> float:
    """The ``fraction`` quantile (nearest rank) of ``values``."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


async def burst(
    server: ProxyServer,
    requests: Sequence[tuple[str, list[Json]]],
    concurrency: int,
    on_done: Callable[[int], Awaitable[None]] | None = None,
) -> BurstResult:
    """Send ``requests`` to ``server``, ``concurrency`` at a time; never raises for them."""
    result = BurstResult()
    gate = asyncio.Semaphore(concurrency)
    done = 0
    # A fresh connection per request: a kept-alive one the proxy closes as idle just as
    # the next request goes out fails with a ReadError that is no fault of either side.
    http = httpx.AsyncClient(limits=httpx.Limits(max_keepalive_connections=0), timeout=120)
    client = openai.AsyncOpenAI(
        base_url=f"{server.url}/v1", api_key=MASTER_KEY, max_retries=0, http_client=http
    )

    async def one(group: str, messages: list[Json]) -> None:
        nonlocal done
        async with gate:
            started = time.perf_counter()
            try:
                await client.chat.completions.create(model=group, messages=cast(Any, messages))
            except Exception as err:  # counted and reported: the test asserts there are none
                cause = err.__cause__ or err.__context__
                result.failures.append(
                    f"{group} ({len(messages)} messages): {type(err).__name__}: "
                    f"{str(err)[:200]} (cause: {cause!r})"[:400]
                )
            else:
                result.latencies.append(time.perf_counter() - started)
            done += 1
            if on_done is not None:
                await on_done(done)

    started = time.perf_counter()
    try:
        await asyncio.gather(*(one(group, messages) for group, messages in requests))
    finally:
        result.seconds = time.perf_counter() - started
        await client.close()
        await http.aclose()
    return result


def _api(route: str | None, body: Any) -> WireApi:
    if route == "anthropic-messages":
        return "anthropic-messages"
    model = str(body.get("model", "")) if isinstance(body, dict) else ""
    return "mistral" if model.startswith("mistral") else "openai-chat"


def upstream_problems(bodies: Sequence[tuple[str | None, Any]]) -> list[str]:
    """Rule violations and foreign markers in the bodies a stand-in received."""
    problems: list[str] = []
    for route, body in bodies:
        api = _api(route, body)
        markers = set(MARKER.findall(json.dumps(body)))
        if len(markers) != 1:
            problems.append(f"{api}: markers {sorted(markers)[:4]}")
        problems.extend(f"{api} {sorted(markers)[:1]}: {v}" for v in violations(api, body))
    return problems
