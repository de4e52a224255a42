"""What hygiene adds to a real LiteLLM proxy: latency, throughput, memory.

Two ``litellm --config`` proxies on 127.0.0.1 over one provider stand-in (in this
process's threads): one with ``litellm_hygiene.proxy_handler`` (in-process provenance
store), one without. Each round sends the same burst of mixed multi-turn requests
(Claude and GPT agent histories of 2 to 5 exchanges sent to Claude, Mistral and GPT;
``tests.support.load.conversation``) to both, in alternating order, ``--concurrency`` at a time.
Printed: p50/p95/p99 latency and throughput of each proxy (medians over rounds), the
ratio with/without, each proxy's peak resident memory (``VmHWM``) and its growth over
the idle proxy per concurrent request, and hygiene's own peak allocation for one
request (``tracemalloc`` around the hook, in this process). Both proxies start and stop
by themselves.

With ``--sessions N --steps S`` each round is instead N agent sessions at once (issue
38: a proxy with 30 concurrent sessions loses at most 5 % throughput): each session is
an agent's history built from the corpus's recorded answers (``transcripts.agent_session``,
its own system prompt and ids), sent request by request as the agent sends it, the whole
history each time, the next request once the answer to the last is in; the sessions go
to Claude, Mistral and GPT in turn. Throughput counts requests over the round's time.

Run: LITELLM_LOCAL_MODEL_COST_MAP=True .venv/bin/python benchmarks/bench_proxy.py
     [--requests 300] [--concurrency 30] [--rounds 3] [--sessions 30 --steps 40]
     [--hygiene KEY=VALUE ...] (the hygiene proxy's options, e.g. recall_max_mb=0)
Prints; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# The checkout is searched last, for tests/: hygiene is the installed build (a wheel
# runs compiled).
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from machine import describe

from tests.support.load import GROUPS, BurstResult, EchoStandIn, burst, conversation, percentile
from tests.support.proxy_server import ProxyServer, running_proxies, standin_config


def _memory_kib(pid: int | None, field: str) -> int:
    """``VmHWM`` or ``VmRSS`` of a process, in KiB (0 when unknown)."""
    if pid is None:
        return 0
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _proxies(standin: EchoStandIn, settings: dict[str, Any]) -> tuple[ProxyServer, ProxyServer]:
    hygiene = standin_config(standin.base_url, **settings)
    plain = standin_config(standin.base_url)
    plain["litellm_settings"] = {}
    return ProxyServer("bench-hygiene", hygiene), ProxyServer("bench-plain", plain)


@contextmanager
def both_proxies(settings: dict[str, Any]) -> Iterator[tuple[ProxyServer, ProxyServer]]:
    """The proxies with and without hygiene over one stand-in, started and stopped.

    ``settings``: the hygiene proxy's ``callback_settings: litellm_hygiene:`` section.
    """
    standin = EchoStandIn()
    with standin:
        servers = _proxies(standin, settings)
        with running_proxies(servers):
            yield servers


def _stats(results: list[BurstResult]) -> dict[str, float]:
    def median_of(fraction: float) -> float:
        return statistics.median(
            percentile([1000 * s for s in r.latencies], fraction) for r in results
        )

    return {
        "p50": median_of(0.5),
        "p95": median_of(0.95),
        "p99": median_of(0.99),
        "rps": statistics.median(r.throughput for r in results),
        "failed": sum(len(r.failures) for r in results),
    }


def hook_peak_kib(requests: list[tuple[str, list[dict[str, Any]]]]) -> float:
    """Median over requests of hygiene's peak allocation in its hook, in KiB."""
    from litellm_hygiene import HygieneCallback

    models = {"claude": "anthropic/claude-sonnet-4-5", "mistral": "mistral/mistral-large-latest"}
    callback = HygieneCallback()
    peaks = []
    for group, messages in requests[:60]:
        kwargs = {"model": models.get(group, "openai/gpt-4o"), "messages": messages}
        tracemalloc.start()
        asyncio.run(callback.async_pre_call_deployment_hook(kwargs, "acompletion"))
        peaks.append(tracemalloc.get_traced_memory()[1] / 1024)
        tracemalloc.stop()
    return statistics.median(peaks)


async def rounds(
    servers: tuple[ProxyServer, ProxyServer], requests: list[Any], concurrency: int, count: int
) -> dict[str, list[BurstResult]]:
    results: dict[str, list[BurstResult]] = {"with": [], "without": []}
    hygiene, plain = servers
    await burst(hygiene, requests[:concurrency], concurrency)  # warm both
    await burst(plain, requests[:concurrency], concurrency)
    for number in range(count):
        order = [("with", hygiene), ("without", plain)]
        for name, server in order if number % 2 == 0 else order[::-1]:
            results[name].append(await burst(server, requests, concurrency))
    return results


def agent_sessions(count: int, steps: int) -> list[list[tuple[str, list[dict[str, Any]]]]]:
    """``count`` agent sessions of ``steps`` steps, each its requests in order."""
    from transcripts import agent_session, session_requests

    base = {source: agent_session(steps, source) for source in ("claude", "gemini")}
    sessions = []
    for number in range(count):
        source = "claude" if number % 2 == 0 else "gemini"
        text = json.dumps(base[source]).replace("You are a coding agent", f"Agent {number}")
        history = json.loads(text)
        group = GROUPS[number % len(GROUPS)]
        sessions.append([(group, history[:end]) for end in session_requests(history)])
    return sessions


async def session_rounds(
    servers: tuple[ProxyServer, ProxyServer], sessions: list[Any], count: int
) -> dict[str, list[BurstResult]]:
    """Each round: every session at once, each request after the answer to the last."""
    results: dict[str, list[BurstResult]] = {"with": [], "without": []}
    hygiene, plain = servers
    await burst(hygiene, [s[0] for s in sessions], len(sessions))  # warm both
    await burst(plain, [s[0] for s in sessions], len(sessions))

    async def everyone(server: ProxyServer) -> BurstResult:
        started = time.perf_counter()
        parts = await asyncio.gather(*(burst(server, session, 1) for session in sessions))
        out = BurstResult(seconds=time.perf_counter() - started)
        for part in parts:
            out.latencies += part.latencies
            out.failures += part.failures
        return out

    for number in range(count):
        order = [("with", hygiene), ("without", plain)]
        for name, server in order if number % 2 == 0 else order[::-1]:
            results[name].append(await everyone(server))
    return results


def _options(settings: dict[str, Any]) -> str:
    return f"; hygiene options {json.dumps(settings)}" if settings else ""


def _setting(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` (``VALUE`` JSON, or else a string) as a hygiene option."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--concurrency", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sessions", type=int, default=0, help="agent sessions at once")
    parser.add_argument("--steps", type=int, default=40, help="steps of each session")
    parser.add_argument(
        "--hygiene",
        type=_setting,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a hygiene option for the proxy with hygiene (a JSON value), e.g. recall_max_mb=0",
    )
    args = parser.parse_args()
    args.hygiene = dict(args.hygiene)
    if args.sessions:
        sessions_main(args)
        return
    requests = [conversation(i, heavy=False) for i in range(args.requests)]
    print(
        f"{describe()}, load average "
        f"{os.getloadavg()[0]:.1f} at start; {args.requests} requests, "
        f"{args.concurrency} at a time, {args.rounds} rounds{_options(args.hygiene)}"
    )
    with both_proxies(args.hygiene) as servers:
        idle = {s.name: _memory_kib(s.pid, "VmRSS") for s in servers}
        results = asyncio.run(rounds(servers, requests, args.concurrency, args.rounds))
        peak = {s.name: _memory_kib(s.pid, "VmHWM") for s in servers}
    print(
        f"{'proxy':<16} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'req/s':>7} {'failed':>6}"
        f" {'peak MiB':>9} {'KiB/conc. req':>14}"
    )
    stats = {}
    for name, server in zip(("with", "without"), servers, strict=True):
        stats[name] = _stats(results[name])
        s = stats[name]
        growth = (peak[server.name] - idle[server.name]) / args.concurrency
        print(
            f"{name + ' hygiene':<16} {s['p50']:8.0f} {s['p95']:8.0f} {s['p99']:8.0f}"
            f" {s['rps']:7.1f} {s['failed']:6.0f} {peak[server.name] / 1024:9.0f} {growth:14.0f}"
        )
    w, wo = stats["with"], stats["without"]
    print(
        f"with / without: p50 {w['p50'] / wo['p50']:.2f}x, p95 {w['p95'] / wo['p95']:.2f}x, "
        f"p99 {w['p99'] / wo['p99']:.2f}x, throughput {w['rps'] / wo['rps']:.2f}x"
    )
    own = hook_peak_kib(requests)
    print(f"hygiene's own peak allocation per request (hook, median): {own:.0f} KiB")


def sessions_main(args: argparse.Namespace) -> None:
    """``--sessions``: concurrent agent sessions through both proxies."""
    sessions = agent_sessions(args.sessions, args.steps)
    total = sum(len(session) for session in sessions)
    print(
        f"{describe()}, load average {os.getloadavg()[0]:.1f} at start; {args.sessions}"
        f" agent sessions of {args.steps} steps at once ({total} requests), {args.rounds} rounds"
        f"{_options(args.hygiene)}"
    )
    with both_proxies(args.hygiene) as servers:
        results = asyncio.run(session_rounds(servers, sessions, args.rounds))
    print(f"{'proxy':<16} {'p50 ms':>8} {'p95 ms':>8} {'req/s':>7} {'failed':>6}")
    stats = {}
    for name in ("with", "without"):
        stats[name] = s = _stats(results[name])
        print(
            f"{name + ' hygiene':<16} {s['p50']:8.0f} {s['p95']:8.0f} {s['rps']:7.1f}"
            f" {s['failed']:6.0f}"
        )
    w, wo = stats["with"], stats["without"]
    ratio = w["rps"] / wo["rps"]
    print(f"with / without: p50 {w['p50'] / wo['p50']:.2f}x, throughput {ratio:.2f}x")


if __name__ == "__main__":
    main()
