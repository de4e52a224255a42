"""Hot-path cost of sanitize_messages, as ratios to copy.deepcopy of the same messages.

Targets the project holds the code to: same-model <= 0.5x, cross-model <= 2x.
Run: LITELLM_LOCAL_MODEL_COST_MAP=True python benchmarks/bench_hygiene.py
Prints ratios measured in this run; asserts nothing.
"""

from __future__ import annotations

import copy
import os
import timeit
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from litellm_hygiene import STAMP_KEY, resolve_target
from litellm_hygiene._sanitize import sanitize_for_target

SIG = "EqQBCkgIAxABGAIiQL0t1cJmUMqzNvJ0MPLKbFQyB7gqEpOPh0hY0y4xeA==" * 4
CLAUDE = {"provider": "anthropic", "api": "anthropic-messages", "model": "claude-sonnet-4-5"}


def transcript(turns: int, *, thinking: bool) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are helpful. " * 20}]
    for n in range(turns):
        call_id = f"toolu_01{n:022d}"
        assistant: dict[str, Any] = {
            "role": "assistant",
            "content": "Let me look that up.",
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": "search", "arguments": '{"q": "weather"}'},
                }
            ],
            STAMP_KEY: CLAUDE,
        }
        if thinking:
            assistant["thinking_blocks"] = [
                {"type": "thinking", "thinking": "plan " * 40, "signature": SIG}
            ]
            assistant["reasoning_content"] = "plan " * 40
        messages += [
            {"role": "user", "content": f"question {n} " * 10},
            assistant,
            {"role": "tool", "tool_call_id": call_id, "content": "sunny " * 30},
        ]
    return messages


def best(fn: Any, number: int) -> float:
    return min(timeit.repeat(fn, number=number, repeat=5)) / number


def ratio(label: str, messages: list[dict[str, Any]], model: str) -> None:
    target = resolve_target(model)
    base = best(lambda: copy.deepcopy(messages), 20)
    cost = best(lambda: sanitize_for_target(messages, target), 20)
    print(
        f"{label:<48} {len(messages):>5} msgs  {cost * 1e3:8.2f} ms  "
        f"deepcopy {base * 1e3:7.2f} ms  ratio {cost / base:5.2f}x"
    )


def main() -> None:
    for turns in (10, 100, 400):
        same = transcript(turns, thinking=False)
        # Same-model requests carry the stamp, which hygiene must strip before sending,
        # so the fast path applies to stamp-free histories (what clients that drop
        # unknown fields send back).
        plain = [{k: v for k, v in m.items() if k != STAMP_KEY} for m in same]
        ratio(f"same-model, clean (fast path), {turns} turns", plain, "anthropic/claude-sonnet-4-5")
        ratio(f"same-model, stamped, {turns} turns", same, "anthropic/claude-sonnet-4-5")
        cross = transcript(turns, thinking=True)
        ratio(f"cross-model Claude->Mistral, {turns} turns", cross, "mistral/mistral-large-latest")
        ratio(f"cross-model Claude->GPT, {turns} turns", cross, "gpt-4o")


if __name__ == "__main__":
    main()
