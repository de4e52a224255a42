"""fit_to_context beside LiteLLM's trim_messages on the same agent transcripts.

Both trim a transcript of about 1,000 and 10,000 messages (``transcripts.agent_transcript``,
GPT's shapes, counted with tiktoken by both) to half its tokens. Printed for each size:
the time of each, their ratio, whether each output keeps tool calls with their results
(the rules' ``tool_pairing`` finds nothing), and fit_to_context's cost per message at
10,000 against 1,000 (linear: about 1x).

trim_messages counts the growing kept list once per kept message (quadratic), so it
runs in a child process with a time limit; past it, its time is printed as a lower bound.

Run: LITELLM_LOCAL_MODEL_COST_MAP=True python benchmarks/bench_fit.py [--limit SECONDS] [sizes ...]
Prints what it measured in this run; asserts nothing.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import multiprocessing
import os
import sys
import time
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import litellm
from machine import describe
from transcripts import agent_transcript

from litellm_hygiene import fit_to_context, validate_messages

MODEL = "gpt-4o"


def transcript(size: int) -> list[dict[str, Any]]:
    """An agent transcript of about ``size`` messages (3.25 per exchange on average)."""
    return agent_transcript(max(1, round(size / 3.25)), source="gpt", stamp=False)


def pairs_kept(messages: list[Any]) -> bool:
    """No call without its results and no result without its call, for OpenAI."""
    found = validate_messages(messages, MODEL)
    return not any(v.code == "tool_pairing" for v in found)


def time_fit(messages: list[Any], budget: int) -> tuple[float, list[Any]]:
    best, out = float("inf"), messages
    for _ in range(3):
        start = time.perf_counter()
        out = fit_to_context(messages, MODEL, context_window=budget).messages
        best = min(best, time.perf_counter() - start)
    return best, out


def _trim_child(size: int, budget: int, queue: Any) -> None:
    messages = transcript(size)
    start = time.perf_counter()
    out = litellm.utils.trim_messages(messages, model=MODEL, max_tokens=budget)
    elapsed = time.perf_counter() - start
    queue.put((elapsed, len(out), pairs_kept(out), out is messages or out == messages))


def time_trim(size: int, budget: int, limit: float) -> tuple[float, bool, int, bool] | None:
    """trim_messages' time, whether it finished, its output size and pairing."""
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    child = context.Process(target=_trim_child, args=(size, budget, queue))
    start = time.perf_counter()
    child.start()
    child.join(limit)
    if child.is_alive():
        child.terminate()
        child.join()
        return time.perf_counter() - start, False, 0, False
    elapsed, kept, paired, _unchanged = queue.get()
    return elapsed, True, kept, paired


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[1000, 10000])
    parser.add_argument("--limit", type=float, default=300.0, help="trim_messages time limit")
    args = parser.parse_args()
    print(describe())
    print(f"litellm {importlib.metadata.version('litellm')}; {MODEL}")
    per_message: dict[int, float] = {}
    for size in args.sizes:
        messages = transcript(size)
        total = litellm.token_counter(model=MODEL, messages=messages)
        budget = total // 2
        fit_time, fitted = time_fit(messages, budget)
        per_message[size] = fit_time / len(messages)
        trim = time_trim(size, budget, args.limit)
        assert trim is not None
        trim_time, finished, trim_kept, trim_paired = trim
        bound = "" if finished else ">"
        print(
            f"{len(messages):>6} messages, {total} tokens -> budget {budget}: "
            f"fit_to_context {fit_time:.3f} s (kept {len(fitted)}, pairs kept "
            f"{pairs_kept(fitted)}); trim_messages {bound}{trim_time:.1f} s"
            + (f" (kept {trim_kept}, pairs kept {trim_paired})" if finished else " (stopped)")
            + f"; ratio trim/fit {bound}{trim_time / fit_time:.0f}x"
        )
    sizes = sorted(per_message)
    if len(sizes) > 1:
        ratio = per_message[sizes[-1]] / per_message[sizes[0]]
        print(f"fit_to_context per message, {sizes[-1]} vs {sizes[0]}: {ratio:.2f}x")


if __name__ == "__main__":
    main()
