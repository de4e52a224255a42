"""The conversation the scenario cassettes share: a weather question, one tool, Claude's turn.

Turn 1 of most scenarios is the same Claude turn (signed thinking, a sentence, two
parallel ``get_weather`` calls); :func:`claude_turn` plays it and returns the history a
client holds afterwards, built the way clients build it: the answer's
``message.model_dump()`` (stamp included) and one ``tool`` message per call.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from litellm_hygiene._standin import Reply, anthropic

if TYPE_CHECKING:
    from tests.support.cassettes import Recording

__all__ = [
    "ANSWER",
    "CLAUDE",
    "CLAUDE_ID",
    "CLAUDE_STAMP",
    "QUESTION",
    "RESULTS",
    "THINKING",
    "TOOLS",
    "claude_thinks_and_calls_tools",
    "claude_turn",
    "tool_results",
]

CLAUDE = "anthropic/claude-sonnet-4-5-20250929"
CLAUDE_ID = CLAUDE.removeprefix("anthropic/")
CLAUDE_STAMP = {"provider": "anthropic", "api": "anthropic-messages", "model": CLAUDE_ID}
THINKING = {"type": "enabled", "budget_tokens": 1024}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather in a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]
QUESTION = [
    {"role": "system", "content": "You are a concise travel assistant."},
    {"role": "user", "content": "Is it warmer in Paris or in Tokyo right now?"},
]
RESULTS = {"Paris": "18°C, light rain", "Tokyo": "24°C, sunny"}
ANSWER = "Tokyo is warmer: 24°C and sunny, against 18°C and light rain in Paris."


def claude_thinks_and_calls_tools(seed: str) -> Reply:
    """Claude's turn 1: signed thinking, a sentence, two parallel ``get_weather`` calls."""
    return anthropic.message(
        anthropic.thinking(
            "The user compares Paris and Tokyo. I need both current temperatures, so I "
            "will call get_weather for each city in parallel.",
            seed=seed,
        ),
        anthropic.text("Let me check the weather in both cities."),
        anthropic.tool_use("get_weather", {"city": "Paris"}, seed=f"{seed}-paris"),
        anthropic.tool_use("get_weather", {"city": "Tokyo"}, seed=f"{seed}-tokyo"),
        model=CLAUDE_ID,
        seed=seed,
    )


def tool_results(message: Any, cities: tuple[str, ...] = ("Paris", "Tokyo")) -> list[Any]:
    """The ``tool`` messages a client appends after running the calls for ``cities``."""
    results = []
    for call in message.tool_calls or []:
        city = json.loads(call.function.arguments)["city"]
        if city in cities:
            results.append({"role": "tool", "tool_call_id": call.id, "content": RESULTS[city]})
    return results


async def claude_turn(
    wire: Recording, seed: str, cities: tuple[str, ...] = ("Paris", "Tokyo")
) -> tuple[Any, list[Any]]:
    """Turn 1 to Claude; the history once the client ran the calls for ``cities``."""
    first = await wire.acompletion(
        "anthropic",
        CLAUDE,
        QUESTION,
        claude_thinks_and_calls_tools(seed),
        tools=TOOLS,
        max_tokens=2048,
        thinking=THINKING,
    )
    message = first.choices[0].message
    return first, [*QUESTION, message.model_dump(), *tool_results(message, cities)]
