"""What the hook adds to LiteLLM's own request time on the routes coding agents use.

``bench_acompletion.py`` measures chat completions; this measures the same three ways
(``off``, ``on``, ``sent``: see there) for the request shapes of ``bench_hygiene.py``'s
second table, each sent natively through LiteLLM to the stand-in:

- ``/v1/messages`` (Claude Code), ``litellm.anthropic.messages.acreate``: Claude Code's
  session to the same Claude, and to Claude on Bedrock (Anthropic's protocol on
  Bedrock's invoke route, ``/model/{model}/invoke``, signed with AWS's example keys);
- ``/v1/responses`` (Codex), ``litellm.aresponses``: Codex's session to the same GPT, and
  a Gemini session's history sent to GPT.

Each request carries what the agent sends beside its history: Claude Code a system
prompt, tools, ``max_tokens`` and thinking; Codex its instructions and tools. Neither
streams here (both agents do), so the times are the chat benchmark's kind. ``sent``
hands LiteLLM the conversation fields the hook writes (``messages`` and ``system``;
``input`` and ``instructions``), captured once through the shipped callback. Target
(issue "The benchmarks gain one case per new shape"): at most 10 % added at 200
exchanges, as for chat.

Run: LITELLM_LOCAL_MODEL_COST_MAP=True python benchmarks/bench_routes.py [exchanges ...]
     (default 200); --rounds N sets the rounds per case (default 30, 12 above 200
     exchanges); --real runs Claude Code's cases on transcripts shaped like the
     recorded sessions instead. Prints; asserts nothing.
"""

from __future__ import annotations

import asyncio
import functools
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Literal

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import litellm
from bench_acompletion import (
    Hook,
    Measure,
    Measured,
    _arguments,
    _Capture,
    captured,
    compared,
    run_cases,
)
from litellm.anthropic_interface import messages as anthropic_messages
from transcripts import MODELS, Source, claude_code_request, codex_request

Shape = Literal["messages", "responses"]

BEDROCK_CLAUDE = "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0"
"""Claude on Bedrock as ``tests/integration/test_messages_route.py`` sends it:
``/v1/messages`` to it goes out on Bedrock's invoke route, in Anthropic's protocol."""
AWS_EXAMPLE_KEYS = {
    "aws_access_key_id": "AKIAIOSFODNN7EXAMPLE",
    "aws_secret_access_key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "aws_region_name": "us-east-1",
}
"""AWS's documented example credentials (``tests/support/cassettes.py``'s ``FAKE_AWS``): botocore
signs every request with them, part of LiteLLM's own time, and never looks further."""
THINKING = {"type": "enabled", "budget_tokens": 2048}
_TOOL_NAMES = ("search", "read_file", "run_tests")
"""The tools the transcripts call (``transcripts._TOOLS``)."""
_PARAMETERS = {"type": "object", "properties": {"query": {"type": "string"}}}
CLAUDE_CODE_TOOLS = [{"name": name, "input_schema": _PARAMETERS} for name in _TOOL_NAMES]
CODEX_TOOLS = [
    {"type": "function", "name": name, "parameters": _PARAMETERS} for name in _TOOL_NAMES
]
FIELDS: dict[Shape, tuple[str, ...]] = {
    "messages": ("messages", "system"),
    "responses": ("input", "instructions"),
}
"""The conversation fields of each shape: what the hook writes, and ``sent`` hands over."""


@dataclass(frozen=True)
class RouteCase:
    """A coding agent's session sent natively on its route.

    Attributes:
        label: The table's name for it (``bench_hygiene.py``'s, for the same case).
        shape: ``messages`` (Claude Code's transcript) or ``responses`` (Codex's).
        source: The model whose session it is (Claude Code's is Claude's).
        model: The model it is sent to.
        real: Claude Code's transcript shaped like the recorded sessions.
        credentials: What the route signs with, beside the stand-in's key.
    """

    label: str
    shape: Shape
    source: Source
    model: str
    real: bool = False
    credentials: dict[str, str] = field(default_factory=dict)


CASES = [
    RouteCase("claude code, same claude", "messages", "claude", MODELS["claude"]),
    RouteCase(
        "claude code -> bedrock claude",
        "messages",
        "claude",
        BEDROCK_CLAUDE,
        credentials=AWS_EXAMPLE_KEYS,
    ),
    RouteCase("codex, same gpt", "responses", "gpt", MODELS["gpt"]),
    RouteCase("gemini session -> codex gpt", "responses", "gemini", MODELS["gpt"]),
]
REAL_CASES = [
    RouteCase("claude code (real-shaped)", "messages", "claude", MODELS["claude"], real=True),
    RouteCase(
        "claude code (real) -> bedrock",
        "messages",
        "claude",
        BEDROCK_CLAUDE,
        real=True,
        credentials=AWS_EXAMPLE_KEYS,
    ),
]
"""Claude Code's cases on ``agent_transcript(real=True)``; ``--real`` runs these."""


def request(case: RouteCase, exchanges: int, base_url: str) -> dict[str, Any]:
    """The keyword arguments of ``case``'s call at ``exchanges``, to the stand-in."""
    common = {"model": case.model, "api_key": "sk-benchmark", **case.credentials}
    if case.shape == "messages":
        assert case.source == "claude", "Claude Code's sessions are Claude's"
        messages, system = claude_code_request(exchanges, real=case.real)
        return {
            **common,
            "messages": messages,
            "system": system,
            "max_tokens": 4096,
            "thinking": THINKING,
            "tools": CLAUDE_CODE_TOOLS,
            "api_base": base_url,
        }
    items, instructions = codex_request(exchanges, case.source)
    return {
        **common,
        "input": items,
        "instructions": instructions,
        "tools": CODEX_TOOLS,
        "api_base": base_url + "/v1",
    }


async def timed(shape: Shape, kwargs: dict[str, Any]) -> float:
    """One call of ``shape`` through LiteLLM, its answer checked: seconds."""
    start = time.perf_counter()
    if shape == "messages":
        response: Any = await anthropic_messages.acreate(**kwargs)
        elapsed = time.perf_counter() - start
        text = response["content"][0]["text"]
    else:
        response = await litellm.aresponses(**kwargs)
        elapsed = time.perf_counter() - start
        text = response.output[0].content[0].text
    assert text == "Done.", response
    return elapsed


async def measure(
    case: RouteCase, hook: Hook, base_url: str, exchanges: int, rounds: int
) -> Measured:
    """The medians of one case over ``rounds`` rounds (``bench_acompletion.compared``)."""
    kwargs = request(case, exchanges, base_url)
    send = functools.partial(timed, case.shape, kwargs)
    sent = await captured(send, _Capture(FIELDS[case.shape]))
    size = len(kwargs["messages" if case.shape == "messages" else "input"])
    return await compared(hook, send, sent, size, rounds)


def measures(cases: list[RouteCase]) -> list[tuple[str, Measure]]:
    """Each case's label and measurement, for ``bench_acompletion.run_cases``."""
    return [(case.label, functools.partial(measure, case)) for case in cases]


if __name__ == "__main__":
    arguments = sys.argv[1:]
    chosen = REAL_CASES if "--real" in arguments else CASES
    sizes, rounds = _arguments([a for a in arguments if a != "--real"], default=(200,))
    asyncio.run(run_cases(measures(chosen), sizes, rounds, size="items"))
