"""What hygiene adds to a real LiteLLM proxy: latency, throughput, memory.

Two ``litellm --config`` proxies on 127.0.0.1 over one provider stand-in (in this
process's threads): one with ``litellm_hygiene.proxy_handler`` (in-process provenance
store), one without. Each round sends the same burst of mixed multi-turn requests
(Claude and GPT agent histories of 2 to 5 exchanges sent to Claude, Mistral and GPT;
``tests.load.conversation``) to both, in alternating order, ``--concurrency`` at a time.
Printed: p50/p95/p99 latency and throughput of each proxy (medians over rounds), the
ratio with/without, each proxy's peak resident memory (``VmHWM``) and its growth over
the idle proxy per concurrent request, and hygiene's own peak allocation for one
request (``tracemalloc`` around the hook, in this process). Both proxies start and stop
by themselves.

Run: LITELLM_LOCAL_MODEL_COST_MAP=True .venv/bin/python benchmarks/bench_proxy.py
     [--requests 300] [--concurrency 30] [--rounds 3]
Prints; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tracemalloc
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# The checkout is searched last, for tests/: hygiene is the installed build (a wheel
# runs compiled).
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from machine import describe

from tests.load import BurstResult, EchoStandIn, burst, conversation, percentile
from tests.proxy_server import ProxyServer, running_proxies, standin_config


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


def _proxies(standin: EchoStandIn) -> tuple[ProxyServer, ProxyServer]:
    hygiene = standin_config(standin.base_url)
    plain = standin_config(standin.base_url)
    plain["litellm_settings"] = {}
    return ProxyServer("bench-hygiene", hygiene), ProxyServer("bench-plain", plain)


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--concurrency", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    requests = [conversation(i, heavy=False) for i in range(args.requests)]
    print(
        f"{describe()}, load average "
        f"{os.getloadavg()[0]:.1f} at start; {args.requests} requests, "
        f"{args.concurrency} at a time, {args.rounds} rounds"
    )
    standin = EchoStandIn()
    with standin:
        servers = _proxies(standin)
        with running_proxies(servers):
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


if __name__ == "__main__":
    main()
