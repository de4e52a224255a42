"""What the garbage collector costs a request, with the hook paused around it or not.

The median of ``bench_acompletion`` leaves out the rare request a full collection lands
on (with LiteLLM loaded, a full collection scans about 400,000 objects: about 0.2 s
here); throughput pays for it all the same. This sends the same transcripts through
``litellm.acompletion`` to the local stand-in in three interleaved modes (no hook; the
hook with ``pause_gc=False``; the hook as shipped, ``pause_gc=True``) and prints, per
mode, the mean and median request time and the collector's time per request (timed by
``gc.callbacks``).

Run: LITELLM_LOCAL_MODEL_COST_MAP=True python benchmarks/bench_gc.py [rounds]
     (default 150 rounds of each mode, 200 exchanges). Prints; asserts nothing.
Which mode a full collection lands on is chance: compare over many rounds.
"""

from __future__ import annotations

import asyncio
import gc
import os
import statistics
import sys
import time
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import litellm
from bench_acompletion import CASES, RECORDED, Hook, StandInProcess, record, timed
from machine import describe
from transcripts import agent_transcript

from litellm_hygiene import HygieneCallback

MODES = ("off", "hook, pause_gc=False", "hook, pause_gc=True")
EXCHANGES = 200


class CollectorClock:
    """Seconds the cyclic collector ran, summed (``gc.callbacks``)."""

    def __init__(self) -> None:
        self.total = 0.0
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.total += time.perf_counter() - self._started


async def run(rounds: int) -> None:
    litellm.suppress_debug_info = True
    stand_in = StandInProcess()
    clock = CollectorClock()
    gc.callbacks.append(clock)
    hooks = {
        MODES[1]: Hook(HygieneCallback(pause_gc=False)),
        MODES[2]: Hook(HygieneCallback(pause_gc=True)),
    }
    try:
        print(describe())
        print(f"{rounds} rounds of each mode, {EXCHANGES} exchanges")
        print(f"{'case':<32} {'mode':<22} {'mean ms':>8} {'median':>8} {'gc ms/req':>10}")
        for label, source, stamp, target in CASES:
            messages = agent_transcript(EXCHANGES, source=source, stamp=stamp)
            if label in RECORDED:
                for hook in hooks.values():
                    record(hook, messages, source)
            times: dict[str, list[float]] = {mode: [] for mode in MODES}
            collected = dict.fromkeys(MODES, 0.0)
            for number in range(rounds):
                shift = number % len(MODES)
                for mode in MODES[shift:] + MODES[:shift]:
                    for name, hook in hooks.items():
                        hook.on() if name == mode else hook.off()
                    before = clock.total
                    times[mode].append(await timed(messages, target, stand_in.base_url))
                    collected[mode] += clock.total - before
            for hook in hooks.values():
                hook.off()
            for mode in MODES:
                mean = statistics.fmean(times[mode]) * 1e3
                median = statistics.median(times[mode]) * 1e3
                print(
                    f"{label:<32} {mode:<22} {mean:8.1f} {median:8.1f}"
                    f" {collected[mode] / rounds * 1e3:10.2f}"
                )
    finally:
        gc.callbacks.remove(clock)
        stand_in.close()


if __name__ == "__main__":
    asyncio.run(run(int(sys.argv[1]) if sys.argv[1:] else 150))
