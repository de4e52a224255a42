"""What the hook adds to LiteLLM's own request time, through ``litellm.acompletion``.

Each request goes through LiteLLM's real request path (transformation, HTTP client,
response parsing, logging) to the local provider stand-in, run in its own process on
127.0.0.1 so the stand-in's work never shares this interpreter. Each round sends the
same request once with the callback registered and once without, in alternating order;
the overhead is the median over rounds of ``(on - off) / off``, a ratio taken at one
moment, so the load of a shared machine cancels out. Target (issue "One rule, one
place"): at most 10 % at 200 exchanges.

Run: LITELLM_LOCAL_MODEL_COST_MAP=True python benchmarks/bench_acompletion.py [exchanges ...]
     (default 10 50 200; add 1000 for the long case); --rounds N sets the rounds per
     case (default 31, and 11 above 200 exchanges). Prints; asserts nothing.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import time
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import litellm
from machine import describe
from transcripts import MODELS, Source, agent_transcript

from litellm_hygiene import HygieneCallback, resolve_target
from litellm_hygiene._integration._annotate import provenance_of
from litellm_hygiene._integration._fingerprint import fingerprints

HERE = os.path.dirname(os.path.abspath(__file__))

# (label, source, stamped, target)
CASES: list[tuple[str, Source, bool, str]] = [
    ("same-model claude, unstamped", "claude", False, "claude"),
    ("same-model claude, recorded", "claude", False, "claude"),
    ("same-model claude, stamped", "claude", True, "claude"),
    ("same-model gemini, stamped", "gemini", True, "gemini"),
    ("cross-model claude -> gpt", "claude", True, "gpt"),
    ("cross-model claude -> mistral", "claude", True, "mistral"),
    ("cross-model gemini -> claude", "gemini", True, "claude"),
    ("cross-model gpt -> claude", "gpt", True, "claude"),
]
RECORDED = frozenset({"same-model claude, recorded"})
"""Unstamped cases whose turns the hook has seen answered: each turn's provenance is in
the in-process store (a client that drops stamps, talking through this proxy), so its
lookup finds it by its first key."""
BASE_PATHS = {"claude": "", "gemini": "/v1beta", "gpt": "/v1", "mistral": "/v1"}
"""The path of each real API's base URL, kept so the stand-in's routes match."""
TARGET_OVERHEAD = 0.10


class StandInProcess:
    """The stand-in in a child process; stopped by PID when the benchmark ends."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "_standin_process.py")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        self.base_url = self.process.stdout.readline().strip()
        if not self.base_url.startswith("http://127.0.0.1:"):
            self.close()
            raise RuntimeError("the stand-in did not start")

    def close(self) -> None:
        """Close its stdin (it stops), then wait; kill it if it does not."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class Hook:
    """Registers and unregisters one callback, from every list LiteLLM copied it into."""

    def __init__(self, callback: HygieneCallback | None = None) -> None:
        self.callback = callback or HygieneCallback()

    def on(self) -> None:
        litellm.callbacks = [self.callback]

    def off(self) -> None:
        for name in dir(litellm):
            value = getattr(litellm, name, None)
            if isinstance(value, list) and any(item is self.callback for item in value):
                value[:] = [item for item in value if item is not self.callback]


async def timed(messages: list[dict[str, Any]], target: str, base_url: str) -> float:
    start = time.perf_counter()
    response = await litellm.acompletion(
        model=MODELS[target],
        messages=messages,
        api_base=base_url + BASE_PATHS[target],
        api_key="sk-benchmark",
        num_retries=0,
    )
    elapsed = time.perf_counter() - start
    assert response.choices[0].message.content == "Done.", response
    return elapsed


async def measure(
    hook: Hook, base_url: str, case: tuple[str, Source, bool, str], exchanges: int, rounds: int
) -> tuple[int, float, float, float]:
    """(messages, median ms off, median ms on, median overhead) of one case."""
    label, source, stamp, target = case
    messages = agent_transcript(exchanges, source=source, stamp=stamp)
    if label in RECORDED:
        record(hook, messages, target)
    for switch in (hook.on, hook.off):  # warm both paths
        switch()
        await timed(messages, target, base_url)
    offs: list[float] = []
    ons: list[float] = []
    overheads: list[float] = []
    for number in range(rounds):
        times: dict[bool, float] = {}
        for enabled in (True, False) if number % 2 else (False, True):
            hook.on() if enabled else hook.off()
            before = hook.callback.stats["requests"]
            times[enabled] = await timed(messages, target, base_url)
            assert hook.callback.stats["requests"] - before == int(enabled)
        offs.append(times[False])
        ons.append(times[True])
        overheads.append((times[True] - times[False]) / times[False])
    hook.off()
    return (
        len(messages),
        statistics.median(offs) * 1e3,
        statistics.median(ons) * 1e3,
        statistics.median(overheads),
    )


def record(hook: Hook, messages: list[dict[str, Any]], target: str) -> None:
    """Put each assistant turn's provenance in the hook's store, as its answer did."""
    store = hook.callback.store
    assert store is not None, "the benchmark's callback has the in-process store"
    provenance = provenance_of(resolve_target(MODELS[target]))
    for message in messages:
        if message["role"] == "assistant":
            store.put(fingerprints(message), provenance)


async def run(sizes: list[int], rounds: int | None = None) -> None:
    litellm.suppress_debug_info = True
    stand_in = StandInProcess()
    hook = Hook()
    try:
        print(f"{describe()}, LiteLLM {_litellm_version()}")
        print(f"{'case':<32} {'exch':>5} {'msgs':>6} {'off ms':>8} {'on ms':>8} {'added':>7}")
        for case in CASES:
            for exchanges in sizes:
                count, off, on, overhead = await measure(
                    hook,
                    stand_in.base_url,
                    case,
                    exchanges,
                    rounds or (31 if exchanges <= 200 else 11),
                )
                mark = "  missed" if exchanges == 200 and overhead > TARGET_OVERHEAD else ""
                print(
                    f"{case[0]:<32} {exchanges:>5} {count:>6} {off:8.1f} {on:8.1f}"
                    f" {overhead:+7.1%}{mark}"
                )
        print(f"\ntarget: at most {TARGET_OVERHEAD:.0%} added at 200 exchanges")
    finally:
        stand_in.close()


def _litellm_version() -> str:
    from importlib.metadata import version

    return version("litellm")


_USAGE = "usage: bench_acompletion.py [exchanges ...] [--rounds N]"


def _arguments(argv: list[str]) -> tuple[list[int], int | None]:
    """(exchanges, rounds) from the command line; ``SystemExit`` with usage when wrong."""
    rounds: int | None = None
    if "--rounds" in argv:
        at = argv.index("--rounds")
        try:
            rounds = int(argv[at + 1])
        except (IndexError, ValueError):
            raise SystemExit(_USAGE) from None
        if rounds < 1:
            raise SystemExit("--rounds must be at least 1")
        argv = argv[:at] + argv[at + 2 :]
    try:
        sizes = [int(a) for a in argv] or [10, 50, 200]
    except ValueError:
        raise SystemExit(_USAGE) from None
    return sizes, rounds


if __name__ == "__main__":
    asyncio.run(run(*_arguments(sys.argv[1:])))
