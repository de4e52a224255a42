"""Hot-path cost of sanitize_messages, as ratios to copy.deepcopy of the same messages.

Targets the project holds the code to: same-model <= 0.5x, cross-model <= 2x, cost
linear in transcript length.
Run: LITELLM_LOCAL_MODEL_COST_MAP=True python benchmarks/bench_hygiene.py [turns ...]
Prints ratios measured in this run; asserts nothing.

Each ratio is measured in rounds that time the deepcopy and the hook back to back, and
is the median of the per-round ratios: on a shared machine the load drifts between
rounds, and a ratio of two numbers taken at the same moment drifts far less than
either number.
"""

from __future__ import annotations

import copy
import os
import statistics
import sys
import timeit
from collections.abc import Callable
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from litellm_hygiene import STAMP_KEY, resolve_target
from litellm_hygiene._sanitize import sanitize_for_target

SIG = "EqQBCkgIAxABGAIiQL0t1cJmUMqzNvJ0MPLKbFQyB7gqEpOPh0hY0y4xeA==" * 4
GEMINI_SIG = "CiQBVKhc7mO4GPk1KLSHYaBB4gK1dAAYD4sAj1x0qQ4rFO0+iRoKWgFUqFzu" * 2
STAMPS = {
    "claude": {"provider": "anthropic", "api": "anthropic-messages", "model": "claude-sonnet-4-5"},
    "gpt": {"provider": "openai", "api": "openai-chat", "model": "gpt-4o"},
    "gemini": {"provider": "gemini", "api": "gemini", "model": "gemini-2.5-pro"},
}
MODELS = {
    "claude": "anthropic/claude-sonnet-4-5",
    "gpt": "gpt-4o",
    "gemini": "gemini/gemini-2.5-pro",
    "mistral": "mistral/mistral-large-latest",
}


def _call(source: str, n: int) -> dict[str, Any]:
    call: dict[str, Any] = {
        "id": {"claude": f"toolu_01{n:022d}", "gpt": f"call_{n:024d}", "gemini": f"call_{n:08x}"}[
            source
        ],
        "type": "function",
        "function": {"name": "search", "arguments": '{"q": "weather"}'},
    }
    if source == "gemini":
        call["provider_specific_fields"] = {"thought_signature": GEMINI_SIG}
    return call


def _assistant(source: str, n: int, *, thinking: bool, stamp: bool) -> dict[str, Any]:
    assistant: dict[str, Any] = {
        "role": "assistant",
        "content": "Let me look that up.",
        "tool_calls": [_call(source, n)],
    }
    if thinking and source == "claude":
        assistant["thinking_blocks"] = [
            {"type": "thinking", "thinking": "plan " * 40, "signature": SIG}
        ]
        assistant["reasoning_content"] = "plan " * 40
    elif thinking and source == "gemini":
        assistant["reasoning_content"] = "plan " * 40
    if stamp:
        assistant[STAMP_KEY] = STAMPS[source]
    return assistant


def transcript(
    turns: int, *, source: str = "claude", thinking: bool, stamp: bool = True
) -> list[dict[str, Any]]:
    """A system prompt and ``turns`` tool loops (user, assistant call, tool result)."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are helpful. " * 20}]
    for n in range(turns):
        assistant = _assistant(source, n, thinking=thinking, stamp=stamp)
        messages += [
            {"role": "user", "content": f"question {n} " * 10},
            assistant,
            {
                "role": "tool",
                "tool_call_id": assistant["tool_calls"][0]["id"],
                "content": "sunny " * 30,
            },
        ]
    return messages


def paired_ratio(
    base: Callable[[], Any], cost: Callable[[], Any], number: int
) -> tuple[float, float]:
    """Median per-round ratio of ``cost`` to ``base``, and ``cost``'s best time per call."""
    ratios: list[float] = []
    best = float("inf")
    for _ in range(9):
        base_time = min(timeit.repeat(base, number=number, repeat=2))
        cost_time = min(timeit.repeat(cost, number=number, repeat=2))
        ratios.append(cost_time / base_time)
        best = min(best, cost_time / number)
    return statistics.median(ratios), best


def ratio(label: str, messages: list[dict[str, Any]], model: str) -> None:
    target = resolve_target(model)
    number = max(1, 2000 // len(messages))
    result, seconds = paired_ratio(
        lambda: copy.deepcopy(messages), lambda: sanitize_for_target(messages, target), number
    )
    print(f"{label:<44} {len(messages):>5} msgs  {seconds * 1e3:8.3f} ms  ratio {result:5.2f}x")


def main(sizes: list[int]) -> None:
    for turns in sizes:
        same = transcript(turns, thinking=False)
        # Clients that drop unknown fields send the history back without the stamp.
        plain = [{k: v for k, v in m.items() if k != STAMP_KEY} for m in same]
        ratio(f"same-model clean, {turns} turns", plain, MODELS["claude"])
        ratio(f"same-model stamped, {turns} turns", same, MODELS["claude"])
        thinking = transcript(turns, thinking=True)
        ratio(f"same-model stamped + thinking, {turns} turns", thinking, MODELS["claude"])
        for source, target in (
            ("claude", "mistral"),
            ("claude", "gpt"),
            ("claude", "gemini"),
            ("gpt", "claude"),
            ("gemini", "claude"),
        ):
            messages = transcript(turns, source=source, thinking=True)
            ratio(f"cross-model {source}->{target}, {turns} turns", messages, MODELS[target])


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [10, 100, 400])
