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
import copy
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
``tests/rules/test_linear_work.py``."""

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


# --------------------------------------------------------------------------------------------
# Sessions built from recorded answers
# --------------------------------------------------------------------------------------------

SessionSource = Literal["claude", "gemini"]

SESSION_CALLS = (2, 3, 3, 3)
"""Parallel calls per step, by the step's number modulo 4: 2.75 on average."""
_SESSION_TOOLS = ("read_file", "search", "run_tests")
_LOG_LINE = "2026-11-26T10:41:{:02d}.{:03d}Z INFO  worker[{}] step {} finished in {} ms\n"
_PASTE_LINE = "    at com.example.service.Handler.process(Handler.java:{})  // frame {}\n"


def recorded_answers(source: SessionSource) -> list[dict[str, Any]]:
    """``source``'s recorded answers in ``../shared/corpus``, as LiteLLM parsed them.

    Each is ``response.choices[0].message.model_dump()`` of an answer LiteLLM built from
    the recorded bytes (``tests/support/corpus.py`` replays them through ``litellm.completion``):
    Claude's with signed thinking (``thinking_blocks``, ``reasoning_content`` and
    LiteLLM's ``provider_specific_fields``), Gemini's with a signed call (its
    ``__thought__`` id and ``thought_signatures``). Raises ``FileNotFoundError`` when the
    corpus is absent (``LITELLM_HYGIENE_SHARED`` names the folder holding ``corpus/``).
    """
    from tests.support.corpus import CASSETTES_DIR, litellm_responses

    if not CASSETTES_DIR.is_dir():
        raise FileNotFoundError(
            f"the recorded sessions need ../shared/corpus: {CASSETTES_DIR} does not exist"
            " (set LITELLM_HYGIENE_SHARED to the folder holding corpus/)"
        )
    answers = [r.message for r in litellm_responses() if r.provider == _PROVIDERS[source]]
    return [m for m in answers if _fits(source, m)]


_PROVIDERS: dict[SessionSource, str] = {"claude": "anthropic", "gemini": "gemini"}


def _fits(source: SessionSource, message: dict[str, Any]) -> bool:
    """Whether a recorded answer can be a step of ``source``'s session."""
    if source == "claude":
        blocks = message.get("thinking_blocks") or []
        return bool(blocks) and all(
            b.get("type") == "thinking" and b.get("signature") for b in blocks
        )
    calls = message.get("tool_calls") or []
    return bool(calls) and "__thought__" in calls[0]["id"]


def _digits(seed: str, alphabet: str, count: int) -> str:
    """``count`` characters of ``alphabet``, fixed by ``seed`` (ids as providers mint them)."""
    number = int.from_bytes(hashlib.sha256(seed.encode()).digest(), "big")
    out = []
    for _ in range(count):
        number, digit = divmod(number, len(alphabet))
        out.append(alphabet[digit])
    return "".join(out)


_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _arguments(n: int, k: int) -> str:
    tool = _SESSION_TOOLS[k % len(_SESSION_TOOLS)]
    if tool == "read_file":
        return f'{{"path": "src/service/module_{n % 97}/handler_{k}.py"}}'
    if tool == "search":
        return f'{{"query": "def handle_{n}_{k}", "path": "src", "limit": 20}}'
    return f'{{"command": "pytest tests/test_module_{n % 97}.py -q -x", "timeout": 120}}'


def _session_calls(source: SessionSource, n: int, answer: dict[str, Any]) -> list[dict[str, Any]]:
    """Step ``n``'s parallel calls in ``source``'s shapes, as LiteLLM returns them.

    Claude's carry ``toolu_01`` ids and LiteLLM's ``index``; Gemini's first call carries
    the recorded answer's signature in its id and its provider fields, the others none
    (Gemini signs the first call of a turn).
    """
    calls: list[dict[str, Any]] = []
    for k in range(SESSION_CALLS[n % len(SESSION_CALLS)]):
        function = {"arguments": _arguments(n, k), "name": _SESSION_TOOLS[k % 3]}
        if source == "claude":
            call_id = "toolu_01" + _digits(f"claude {n} {k}", _BASE62, 22)
            calls.append({"index": k + 1, "function": function, "id": call_id, "type": "function"})
            continue
        call_id = "call_" + _digits(f"gemini {n} {k}", "0123456789abcdef", 28)
        call: dict[str, Any] = {"function": function, "id": call_id, "type": "function"}
        if k == 0:
            signature = answer["provider_specific_fields"]["thought_signatures"][0]
            call = {"provider_specific_fields": {"thought_signature": signature}, **call}
            call["id"] = f"{call_id}__thought__{signature}"
        calls.append(call)
    return calls


def _result(n: int, k: int, name: str) -> str:
    """A call's result: a log dump of about 3 KB as every third step's first, else short."""
    if k == 0 and n % 3 == 0:
        return "".join(_LOG_LINE.format(i % 60, i * 7 % 1000, i % 8, n, i * 13) for i in range(40))
    return f"{name}: " + f"line {n}.{k} of what the tool printed. " * 4


def agent_session(steps: int, source: SessionSource = "claude") -> list[dict[str, Any]]:
    """A coding agent's session of ``steps`` steps, each assistant turn a recorded answer.

    One step is an assistant turn (a recorded answer of ``source``, in turn, as LiteLLM
    parsed it: its content, its signed thinking or signature and its provider fields,
    with 2 or 3 parallel calls of its shape and fresh ids), then one result per call; a
    log dump of about 3 KB is every third step's first result. A user turn opens every
    fourth step, a paste of about 3 KB every eighth; the system prompt is about 3 KB.
    Claude's, at 200 steps: 801 messages, 1.22 MB (issue 38's: 800, 885 KB). No stamps:
    what a client keeps of LiteLLM's answers (see ``stamp_session``).
    """
    answers = recorded_answers(source)
    system = "You are a coding agent working in a large repository. Follow the rules. " * 42
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}]
    for n in range(steps):
        if n % 8 == 0:
            paste = "".join(_PASTE_LINE.format(n * 31 + i, i) for i in range(42))
            messages.append({"role": "user", "content": f"Task {n // 4}: it fails with\n{paste}"})
        elif n % 4 == 0:
            messages.append({"role": "user", "content": f"Now handle task {n // 4}. " * 8})
        answer = copy.deepcopy(answers[n % len(answers)])
        answer["tool_calls"] = _session_calls(source, n, answer)
        messages.append(answer)
        for k, call in enumerate(answer["tool_calls"]):
            result = _result(n, k, call["function"]["name"])
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    return messages


def session_requests(messages: list[dict[str, Any]]) -> list[int]:
    """Where each request of a session ends: request ``j`` is ``messages[:ends[j]]``.

    An agent sends the whole history after each step's results: request ``j`` holds
    the system prompt, steps ``0..j`` and their results, and the user turn opening step
    ``j + 1`` when there is one.
    """
    ends: list[int] = []
    for i in range(1, len(messages)):
        if messages[i - 1]["role"] == "tool" and messages[i]["role"] != "tool":
            ends.append(i + 1 if messages[i]["role"] == "user" else i)
    return [*ends, len(messages)]


def stamp_session(messages: list[dict[str, Any]], source: SessionSource) -> list[dict[str, Any]]:
    """The session with each assistant turn stamped as the hook stamps ``source``'s answers."""
    return [
        {**m, STAMP_KEY: dict(STAMPS[source])} if m["role"] == "assistant" else m for m in messages
    ]
