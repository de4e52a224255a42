"""Hot-path cost of sanitize_messages, as ratios to copy.deepcopy of the same messages.

Targets (issue "One rule, one place"), on agent transcripts of 50, 200 and 1,000
exchanges: same-model (stamped and unstamped) <= 0.5x; cross-model <= 2x; per-message
cost within 1.25x from 50 to 1,000 exchanges.

Run: LITELLM_LOCAL_MODEL_COST_MAP=True python benchmarks/bench_hygiene.py [exchanges ...]
     add --profile CASE EXCHANGES to print a cProfile of one case instead.
Prints ratios measured in this run; asserts nothing but that a floor writes hygiene's output.

Each ratio is measured in rounds that time the deepcopy and the hook back to back, and
is the median of the per-round ratios: on a shared machine the load drifts between
rounds, and a ratio of two numbers taken at the same moment drifts far less than
either number.
"""

from __future__ import annotations

import copy
import cProfile
import os
import pstats
import statistics
import sys
import timeit
from collections.abc import Callable
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from machine import describe
from transcripts import (
    MODELS,
    REAL_CASES,
    SANITIZE_CASES,
    Source,
    agent_transcript,
    claude_code_request,
    codex_request,
)

from litellm_hygiene import TargetModel, resolve_target, sanitize_anthropic_messages
from litellm_hygiene._openai._wire import OPENAI
from litellm_hygiene._pipeline import context_for
from litellm_hygiene._responses._chat import read_as_chat as read_responses
from litellm_hygiene._sanitize import read_request, sanitize_for_target, sanitize_read
from litellm_hygiene._wire._ids import split_id

SAME_MODEL, CROSS_MODEL = 0.5, 2.0
"""The targets: at most these ratios to ``copy.deepcopy``."""
BEDROCK_CLAUDE = "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0"
PER_MESSAGE_GROWTH = 1.25
"""The target: cost per message at the most exchanges over that at the fewest."""

# (label, source, stamped, target, target ratio)
CASES: list[tuple[str, Source, bool, str, float]] = [
    (label, source, stamped, target, SAME_MODEL if source == target else CROSS_MODEL)
    for label, source, stamped, target in [*SANITIZE_CASES, *REAL_CASES]
]


def paired_ratio(
    base: Callable[[], Any], cost: Callable[[], Any], number: int
) -> tuple[float, float, float]:
    """Median per-round ratio of ``cost`` to ``base``, and each one's best time per call."""
    ratios: list[float] = []
    best = base_best = float("inf")
    for _ in range(7):
        base_time = min(timeit.repeat(base, number=number, repeat=2))
        cost_time = min(timeit.repeat(cost, number=number, repeat=2))
        ratios.append(cost_time / base_time)
        best = min(best, cost_time / number)
        base_best = min(base_best, base_time / number)
    return statistics.median(ratios), best, base_best


def floor_gemini_to_claude(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The bare rewrite of a stamped Gemini transcript for Claude, as hygiene writes it.

    Reasoning becomes text before the content, each call loses its signature (in its id
    and its provider fields), and each result carries its call's new id. Nothing is
    read, checked or reported: it is right only for this transcript shape.
    """
    out: list[dict[str, Any]] = []
    for message in messages:
        role = message["role"]
        if role == "assistant":
            turn = dict(message)
            reasoning = turn.pop("reasoning_content", None)
            if reasoning:
                turn["content"] = f"{reasoning}\n\n{turn['content']}"
            calls = turn.get("tool_calls")
            if calls:
                turn["tool_calls"] = [
                    {"id": split_id(c["id"])[0], "type": c["type"], "function": c["function"]}
                    for c in calls
                ]
            message = turn
        elif role == "tool":
            message = {**message, "tool_call_id": split_id(message["tool_call_id"])[0]}
        out.append(message)
    return out


FLOORS: dict[str, Callable[[list[dict[str, Any]]], list[dict[str, Any]]]] = {
    "cross-model gemini -> claude": floor_gemini_to_claude,
}
"""A bare rewrite giving hygiene's very output, for the cases one is written for: the
least any implementation spends on the same messages (see bench_floor.py for the hook's)."""


def measure(
    label: str, source: Source, stamp: bool, target: str, exchanges: int
) -> tuple[int, float, float, float, float | None]:
    """(messages, ratio to deepcopy, seconds per call, deepcopy's seconds, the floor's
    ratio to deepcopy or ``None``) of one case."""
    real = label.startswith("real-shaped")
    messages = agent_transcript(exchanges, source=source, stamp=stamp, real=real)
    resolved = resolve_target(MODELS[target])
    number = max(1, 4000 // len(messages))
    result, seconds, copying = paired_ratio(
        lambda: copy.deepcopy(messages), lambda: sanitize_for_target(messages, resolved), number
    )
    floor = FLOORS.get(label)
    if floor is None:
        return len(messages), result, seconds, copying, None
    if floor(messages) != sanitize_for_target(messages, resolved).messages:
        raise AssertionError(f"{label}: the floor does not write hygiene's output")
    floor_ratio, _, _ = paired_ratio(
        lambda: copy.deepcopy(messages), lambda: floor(messages), number
    )
    return len(messages), result, seconds, copying, floor_ratio


def sanitize_responses(items: Any, instructions: Any, target: TargetModel) -> Any:
    """The rules on a ``/v1/responses`` request, as the integration runs them."""
    chat = read_responses(items, instructions)
    ctx = context_for(target)
    result = sanitize_read(read_request(chat.messages, ctx, None, OPENAI))
    return chat.written(result.messages) if result.report.changed else (items, instructions)


# (label, shape, source, target, target ratio): a request as a coding agent sends it.
SHAPE_CASES: list[tuple[str, str, Source, str, float]] = [
    ("claude code, same claude", "messages", "claude", "anthropic/claude-sonnet-4-5", SAME_MODEL),
    ("claude code -> bedrock claude", "messages", "claude", BEDROCK_CLAUDE, SAME_MODEL),
    ("claude code (real-shaped)", "messages", "claude", "anthropic/claude-sonnet-4-5", SAME_MODEL),
    ("codex, same gpt", "responses", "gpt", "openai/responses/gpt-4o", SAME_MODEL),
    ("gemini session -> codex gpt", "responses", "gemini", "openai/responses/gpt-4o", CROSS_MODEL),
]
"""The ``/v1/messages`` and ``/v1/responses`` cases (issue "Every route coding agents use"):
Claude on Bedrock reached natively is Anthropic's protocol, so its case is same-model."""


def measure_shape(
    label: str, shape: str, source: Source, model: str, exchanges: int
) -> tuple[int, float, float]:
    """(items, ratio to deepcopy, seconds per call) of one request-shape case."""
    if shape == "messages":
        messages, system = claude_code_request(exchanges, real="real-shaped" in label)
        request: Any = (messages, system)

        def run() -> Any:
            return sanitize_anthropic_messages(messages, model, system=system)

        size = len(messages)
    else:
        items, instructions = codex_request(exchanges, source)
        request = (items, instructions)
        target = resolve_target(model)

        def run() -> Any:
            return sanitize_responses(items, instructions, target)

        size = len(items)
    number = max(1, 4000 // size)
    result, seconds, _ = paired_ratio(lambda: copy.deepcopy(request), run, number)
    return size, result, seconds


def profile(label: str, exchanges: int) -> None:
    case = next(c for c in CASES if c[0] == label)
    messages = agent_transcript(exchanges, source=case[1], stamp=case[2])
    resolved = resolve_target(MODELS[case[3]])
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(20):
        sanitize_for_target(messages, resolved)
    profiler.disable()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(25)


def main(sizes: list[int]) -> None:
    print(describe())
    print(f"{'case':<32} {'exch':>5} {'msgs':>6} {'ms':>8} {'ratio':>7} {'target':>7} {'floor':>7}")
    per_message: dict[str, list[tuple[float, float]]] = {}
    for label, source, stamp, target, goal in CASES:
        for exchanges in sizes:
            count, result, seconds, copying, floor = measure(
                label, source, stamp, target, exchanges
            )
            per_message.setdefault(label, []).append((seconds / count, copying / count))
            mark = "" if result <= goal else "  missed"
            shown = f"{floor:6.2f}x" if floor is not None else f"{'':7}"
            print(
                f"{label:<32} {exchanges:>5} {count:>6} {seconds * 1e3:8.2f}"
                f" {result:6.2f}x {goal:6.2f}x {shown}{mark}"
            )
    header = f"{'request shape case':<32} {'exch':>5} {'items':>6} {'ms':>8}"
    print(f"\n{header} {'ratio':>7} {'target':>7}")
    for label, shape, source, model, goal in SHAPE_CASES:
        for exchanges in sizes:
            count, result, seconds = measure_shape(label, shape, source, model, exchanges)
            mark = "" if result <= goal else "  missed"
            print(
                f"{label:<32} {exchanges:>5} {count:>6} {seconds * 1e3:8.2f}"
                f" {result:6.2f}x {goal:6.2f}x{mark}"
            )
    if len(sizes) > 1:
        print(
            f"\nper-message cost, {sizes[-1]} vs {sizes[0]} exchanges"
            f" (target <= {PER_MESSAGE_GROWTH}x),"
        )
        print("beside copy.deepcopy's own in the same rounds, and the one over the other")
        print(f"{'case':<32} {'hygiene':>8} {'deepcopy':>9} {'ratio':>7}")
        for label, costs in per_message.items():
            (first, first_copy), (last, last_copy) = costs[0], costs[-1]
            grew, copy_grew = last / first, last_copy / first_copy
            mark = "" if grew <= PER_MESSAGE_GROWTH else "  missed"
            print(f"{label:<32} {grew:7.2f}x {copy_grew:8.2f}x {grew / copy_grew:6.2f}x{mark}")


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--profile"]:
        profile(args[1], int(args[2]))
    else:
        main([int(a) for a in args] or [50, 200, 1000])
