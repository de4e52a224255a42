"""Agent transcripts as LiteLLM returns them, for the benchmarks.

An *exchange* is one assistant turn with its parallel tool calls and one result per
call; every fourth exchange starts with a user turn, as an agent loop that asks the user
now and then. Each source model's turns have the shapes LiteLLM gives them:

- ``claude``: signed ``thinking_blocks`` plus ``reasoning_content``, ``toolu_`` ids;
- ``gpt``: ``content: null`` beside ``call_`` ids, no reasoning;
- ``gemini``: ``reasoning_content``, ``call_<hex>`` ids, the thought signature on the
  first call only (in its id and its provider fields), as LiteLLM returns parallel calls.

Deterministic: the same arguments give the same messages.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any, Literal

from litellm_hygiene import STAMP_KEY, from_openai
from litellm_hygiene._anthropic import to_anthropic
from litellm_hygiene._responses import to_responses

__all__ = [
    "MODELS",
    "REAL_CASES",
    "SANITIZE_CASES",
    "Source",
    "agent_transcript",
    "claude_code_request",
    "codex_request",
]

Source = Literal["claude", "gpt", "gemini"]

SIGNATURE = "EqQBCkgIAxABGAIiQL0t1cJmUMqzNvJ0MPLKbFQyB7gqEpOPh0hY0y4xeA==" * 4
GEMINI_SIGNATURE = "CiQBVKhc7mO4GPk1KLSHYaBB4gK1dAAYD4sAj1x0qQ4rFO0+iRoKWgFUqFzu" * 2
STAMPS: dict[Source, dict[str, str]] = {
    "claude": {"provider": "anthropic", "api": "anthropic-messages", "model": "claude-sonnet-4-5"},
    "gpt": {"provider": "openai", "api": "openai-chat", "model": "gpt-4o"},
    "gemini": {"provider": "gemini", "api": "gemini", "model": "gemini-2.5-pro"},
}
MODELS = {
    "claude": "anthropic/claude-sonnet-4-5",
    "gpt": "openai/gpt-4o",
    "gemini": "gemini/gemini-2.5-pro",
    "mistral": "mistral/mistral-large-latest",
}
"""The model string of each source, and of Mistral (a target only)."""

REAL_CASES: list[tuple[str, Source, bool, str]] = [
    ("real-shaped claude, unstamped", "claude", False, "claude"),
    ("real-shaped claude, stamped", "claude", True, "claude"),
    ("real-shaped claude -> gpt", "claude", True, "gpt"),
    ("real-shaped claude -> mistral", "claude", True, "mistral"),
]
"""Cases on transcripts shaped like recorded sessions (``agent_transcript(real=True)``)."""

SANITIZE_CASES: list[tuple[str, Source, bool, str]] = [
    ("same-model claude, unstamped", "claude", False, "claude"),
    ("same-model claude, stamped", "claude", True, "claude"),
    ("same-model gemini, stamped", "gemini", True, "gemini"),
    ("cross-model claude -> gpt", "claude", True, "gpt"),
    ("cross-model claude -> mistral", "claude", True, "mistral"),
    ("cross-model claude -> gemini", "claude", True, "gemini"),
    ("cross-model gemini -> claude", "gemini", True, "claude"),
    ("cross-model gpt -> claude", "gpt", True, "claude"),
]
"""(label, source, stamped, target): a transcript recorded with ``source``, its turns
stamped or not, sent to ``target``; the cases of ``bench_hygiene.py`` and of
``tests/test_linear_work.py``."""

_TOOLS = ("search", "read_file", "run_tests")


def _call_id(source: Source, n: int, k: int) -> str:
    if source == "claude":
        return f"toolu_01{n:018d}{k:04d}"
    if source == "gpt":
        return f"call_{n:020d}{k:04d}"
    return f"call_{n * 8 + k:016x}"


def _call(source: Source, n: int, k: int) -> dict[str, Any]:
    call: dict[str, Any] = {
        "id": _call_id(source, n, k),
        "type": "function",
        "function": {
            "name": _TOOLS[k % len(_TOOLS)],
            "arguments": f'{{"query": "step {n} part {k}", "limit": {k + 5}}}',
        },
    }
    if source == "gemini" and k == 0:
        call["id"] += "__thought__" + GEMINI_SIGNATURE
        call["provider_specific_fields"] = {"thought_signature": GEMINI_SIGNATURE}
    return call


REAL_SIGNATURE_CHARS = 736
"""The median length of the Claude thinking signatures recorded in ``../shared/corpus``
(5 to 1,364 characters there); the synthetic transcripts' own are 240."""


def _real_signature(n: int) -> str:
    """A signature of real length, one per turn (real ones differ on every turn)."""
    seed = hashlib.sha256(f"turn {n}".encode()).digest()
    raw = (seed * (REAL_SIGNATURE_CHARS // len(seed) + 1))[: REAL_SIGNATURE_CHARS * 3 // 4]
    return base64.b64encode(raw).decode("ascii")


def _assistant(source: Source, n: int, calls: int, stamp: bool) -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": "assistant",
        "content": None if source == "gpt" else f"Checking {calls} things for step {n}.",
        "tool_calls": [_call(source, n, k) for k in range(calls)],
    }
    if source == "claude":
        thought = f"Step {n}: I should look at the files before answering. " * 6
        message["thinking_blocks"] = [
            {"type": "thinking", "thinking": thought, "signature": SIGNATURE}
        ]
        message["reasoning_content"] = thought
    elif source == "gemini":
        message["reasoning_content"] = f"**Planning step {n}** Looking things up. " * 4
    if stamp:
        message[STAMP_KEY] = dict(STAMPS[source])
    return message


def agent_transcript(
    exchanges: int, *, source: Source = "claude", stamp: bool = True, real: bool = False
) -> list[dict[str, Any]]:
    """A system prompt, ``exchanges`` tool exchanges, and a final answer.

    ``real``: shaped like the recorded agent sessions (``../shared/corpus``) rather than
    light: every Claude turn's signature of real length and its own, and tool results of
    1,500 characters, as a coding agent's file reads are.
    """
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a careful coding agent. " * 20}
    ]
    for n in range(exchanges):
        if n % 4 == 0:
            messages.append({"role": "user", "content": f"Now handle task {n // 4}. " * 8})
        calls = 1 + n % 3
        assistant = _assistant(source, n, calls, stamp)
        if real and "thinking_blocks" in assistant:
            assistant["thinking_blocks"][0]["signature"] = _real_signature(n)
        messages.append(assistant)
        body = "line of the file read\n" * 68 if real else "ok " * 40
        for call in assistant["tool_calls"]:
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": call["id"],
                    "content": f"result of {call['function']['name']}: " + body,
                }
            )
    final: dict[str, Any] = {"role": "assistant", "content": "All tasks are done."}
    if stamp:
        final[STAMP_KEY] = dict(STAMPS[source])
    messages.append(final)
    return messages


def claude_code_request(
    exchanges: int, *, real: bool = False
) -> tuple[list[dict[str, Any]], str | None]:
    """Claude's agent transcript as Claude Code sends it to ``/v1/messages``.

    ``(messages, system)``: content blocks (signed thinking, text, ``tool_use``), each
    turn's results in one user message; no stamps (Claude Code keeps only the blocks).
    """
    transcript = agent_transcript(exchanges, source="claude", stamp=False, real=real)
    context = from_openai(transcript)
    messages, _ = to_anthropic(context.model_copy(update={"system_prompt": None}))
    return messages, context.system_prompt


def codex_request(exchanges: int, source: Source = "gpt") -> tuple[Any, Any]:
    """``source``'s agent transcript as Codex sends it to ``/v1/responses``.

    ``(input, instructions)``: message, ``function_call`` and ``function_call_output``
    items (and reasoning items for a reasoning source); no stamps.
    """
    return to_responses(from_openai(agent_transcript(exchanges, source=source, stamp=False)))
