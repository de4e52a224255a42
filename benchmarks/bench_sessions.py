"""Agent sessions replayed request by request through LiteLLM, as agents send them.

A coding agent sends its whole history on every request: request ``j + 1`` is request
``j`` plus one step (issue 38, item 3). This replays sessions built from the corpus's
recorded answers (``transcripts.agent_session``: each step a recorded Claude answer with
its signed thinking, or a recorded Gemini answer with its signed call, 2 or 3 parallel
calls and their results, log dumps, user turns and pastes) on the three request shapes:

- chat (``litellm.acompletion``), the history as LiteLLM returned it, each answer stamped
  as the hook stamps it: same-model Claude and Gemini, Claude -> GPT, Claude -> Mistral,
  Gemini -> Claude;
- ``/v1/messages`` (``litellm.anthropic.messages.acreate``), Claude's session as Claude
  Code sends it (content blocks, no stamps), to the same Claude;
- ``/v1/responses`` (``litellm.aresponses``), a Gemini session as Codex sends it (items,
  no stamps), to GPT.

For a session of ``steps`` steps it sends the last ``--window`` requests (the requests
after steps ``steps - window + 1`` .. ``steps``), in order, each three ways as
``bench_acompletion.py`` does: ``off`` (no callback), ``on`` (the hook) and ``sent`` (a
callback handing LiteLLM what the hook sends for that request, captured just before by a
second instance of the shipped callback), in an order that turns every request. The
request before the window is sent first, untimed, the same way. Each send gets the
request freshly parsed from JSON, as a proxy parses every request (never the objects of
an earlier one). It prints the medians over the window of: LiteLLM's own time (``off``),
the hook's own time per request (``on - sent``, in ms), and the ratios to ``off`` of
``bench_acompletion.py`` (*added*, *body*, *hook*); then ``sanitize_messages`` (or the
shape's own entry point) on the session's last request as a ratio to ``copy.deepcopy``
of it (``bench_hygiene.py``'s measure). Goals (issue 38): *added* at most 5 % at 200
steps; the hook's time per request at the most steps within 1.5x of that at the fewest.

Run: LITELLM_LOCAL_MODEL_COST_MAP=True python benchmarks/bench_sessions.py [steps ...]
     (default 50 200; add 1000 for the long case); --window N requests per case
     (default 12); --cases WORD keeps the cases whose label contains WORD (repeatable);
     --replay-all first sends every earlier request of the session through the hook
     alone, untimed (as a proxy would have seen them). Needs ../shared/corpus (or
     LITELLM_HYGIENE_SHARED); says so and stops without it. Prints; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import functools
import gc
import itertools
import json
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# tests/support/corpus.py replays the recorded answers; the checkout is searched last, so the
# installed build's hygiene is the one measured.
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import litellm
from bench_acompletion import (
    Hook,
    Registration,
    StandInProcess,
    _Capture,
    _litellm_version,
    _Substitute,
    captured,
)
from bench_acompletion import timed as chat_timed
from bench_hygiene import paired_ratio, sanitize_responses
from bench_routes import CLAUDE_CODE_TOOLS, CODEX_TOOLS, FIELDS, THINKING
from bench_routes import timed as route_timed
from machine import describe
from transcripts import (
    MODELS,
    SessionSource,
    agent_session,
    session_requests,
    stamp_session,
)

from litellm_hygiene import from_openai, resolve_target, sanitize_anthropic_messages
from litellm_hygiene._anthropic import to_anthropic
from litellm_hygiene._responses import to_responses
from litellm_hygiene._sanitize import sanitize_for_target

Shape = Literal["chat", "messages", "responses"]
Target = Literal["claude", "gpt", "gemini", "mistral"]
TARGET_ADDED = 0.05
"""Issue 38's goal: the hook adds at most 5 % to LiteLLM's own time at 200 steps."""
TARGET_GROWTH = 1.5
"""Issue 38's goal: the hook's time per request at the most steps over that at the fewest."""


@dataclass(frozen=True)
class SessionCase:
    """A recorded-answer session sent on one shape to one target.

    Attributes:
        label: The table's name for it.
        shape: ``chat``, ``messages`` (as Claude Code sends) or ``responses`` (as Codex).
        source: The model whose answers make the session.
        target: The model it is sent to (a key of ``transcripts.MODELS``).
    """

    label: str
    shape: Shape
    source: SessionSource
    target: Target


CASES = [
    SessionCase("chat, same claude", "chat", "claude", "claude"),
    SessionCase("chat, same gemini", "chat", "gemini", "gemini"),
    SessionCase("chat, claude -> gpt", "chat", "claude", "gpt"),
    SessionCase("chat, claude -> mistral", "chat", "claude", "mistral"),
    SessionCase("chat, gemini -> claude", "chat", "gemini", "claude"),
    SessionCase("messages, same claude", "messages", "claude", "claude"),
    SessionCase("responses, gemini -> gpt", "responses", "gemini", "gpt"),
]


_CHAT_ONLY = ("function_call", "provider_specific_fields", "images", "thinking_blocks")
"""Keys of LiteLLM's chat answers that a native client's blocks or items never hold
(``thinking_blocks`` becomes the thinking blocks; the others are LiteLLM's)."""


def as_blocks_kept(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The chat history as Claude Code or Codex keeps it, before it becomes their shape.

    A native client holds the provider's blocks or items, not LiteLLM's chat answers:
    no ``function_call``, no message-level provider fields, no call ``index``, no empty
    text (the conversion would keep each as it is). Thinking blocks and each call's
    own signature stay.
    """
    kept: list[dict[str, Any]] = []
    for message in messages:
        if message["role"] != "assistant":
            kept.append(message)
            continue
        turn = {k: v for k, v in message.items() if k not in _CHAT_ONLY}
        if message.get("thinking_blocks"):
            turn["thinking_blocks"] = message["thinking_blocks"]
        turn["content"] = message.get("content") or None
        turn["tool_calls"] = [
            {k: v for k, v in call.items() if k != "index"} for call in message["tool_calls"]
        ]
        kept.append(turn)
    return kept


@dataclass(frozen=True)
class Request:
    """One request of a session: its conversation as JSON, and how to send it."""

    size: int
    """Its messages (or items)."""
    blob: str
    """The conversation fields as JSON: each send parses its own copy."""
    send: Callable[[dict[str, Any]], Awaitable[float]]
    """Sends the parsed fields through LiteLLM, checks the answer: seconds."""


def request(case: SessionCase, messages: list[dict[str, Any]], base_url: str) -> Request:
    """``case``'s request for the chat history ``messages``, to the stand-in."""
    model = MODELS[case.target]
    if case.shape == "chat":
        fields: dict[str, Any] = {"messages": stamp_session(messages, case.source)}

        async def send_chat(parsed: dict[str, Any]) -> float:
            return await chat_timed(parsed["messages"], case.target, base_url)

        return Request(len(messages), json.dumps(fields), send_chat)
    context = from_openai(as_blocks_kept(messages))
    if case.shape == "messages":
        blocks, _ = to_anthropic(context.model_copy(update={"system_prompt": None}))
        fields = {"messages": blocks, "system": context.system_prompt}
        common: dict[str, Any] = {"max_tokens": 4096, "thinking": THINKING}
        common |= {"tools": CLAUDE_CODE_TOOLS, "api_base": base_url}
    else:
        items, instructions = to_responses(context)
        fields = {"input": items, "instructions": instructions}
        common = {"tools": CODEX_TOOLS, "api_base": base_url + "/v1"}
    common |= {"model": model, "api_key": "sk-benchmark"}
    shape = case.shape

    async def send_route(parsed: dict[str, Any]) -> float:
        return await route_timed(shape, {**common, **parsed})

    return Request(len(next(iter(fields.values()))), json.dumps(fields), send_route)


@dataclass(frozen=True)
class Replayed:
    """One case's medians over its window of requests."""

    size: int
    off_ms: float
    hook_ms: float
    added: float
    body: float
    hook: float


async def replay(
    case: SessionCase,
    session: list[dict[str, Any]],
    hook: Hook,
    base_url: str,
    window: int,
    replay_all: bool,
) -> Replayed:
    """Send the session's last ``window`` requests three ways each; their medians."""
    ends = session_requests(session)
    first = max(0, len(ends) - window - 1)
    capture = _Capture(("messages",) if case.shape == "chat" else FIELDS[case.shape])
    if replay_all:
        for end in ends[:first]:
            earlier = request(case, session[:end], base_url)
            hook.on()
            await earlier.send(json.loads(earlier.blob))
            hook.off()
    orders = list(itertools.permutations(("off", "on", "sent")))
    times: dict[str, list[float]] = {"off": [], "on": [], "sent": []}
    size = 0
    for number, end in enumerate(ends[first:], start=-1):
        current = request(case, session[:end], base_url)
        capture.sent = None
        sent = await captured(functools.partial(_send_fresh, current), capture)
        registered: dict[str, Registration | None] = {
            "off": None,
            "on": hook,
            "sent": Registration(_Substitute(sent)),
        }
        for mode in orders[number % len(orders)]:
            parsed = json.loads(current.blob)
            registration = registered[mode]
            if registration is not None:
                registration.on()
            elapsed = await current.send(parsed)
            if registration is not None:
                registration.off()
            if number >= 0:
                times[mode].append(elapsed)
        size = current.size
    off, on, through = times["off"], times["on"], times["sent"]
    return Replayed(
        size=size,
        off_ms=statistics.median(off) * 1e3,
        hook_ms=statistics.median([b - c for b, c in zip(on, through, strict=True)]) * 1e3,
        added=statistics.median([(b - a) / a for a, b in zip(off, on, strict=True)]),
        body=statistics.median([(c - a) / a for a, c in zip(off, through, strict=True)]),
        hook=statistics.median([(b - c) / a for a, b, c in zip(off, on, through, strict=True)]),
    )


async def _send_fresh(current: Request) -> float:
    """Send ``current`` parsed afresh."""
    return await current.send(json.loads(current.blob))


def against_deepcopy(case: SessionCase, session: list[dict[str, Any]]) -> float:
    """Hygiene's entry point for the shape on the whole session, over ``copy.deepcopy``."""
    model = MODELS[case.target]
    if case.shape == "chat":
        messages = stamp_session(session, case.source)
        target = resolve_target(model)
        request: Any = messages

        def run() -> Any:
            return sanitize_for_target(messages, target)

    else:
        context = from_openai(as_blocks_kept(session))
        if case.shape == "messages":
            blocks, _ = to_anthropic(context.model_copy(update={"system_prompt": None}))
            system = context.system_prompt
            request = (blocks, system)

            def run() -> Any:
                return sanitize_anthropic_messages(blocks, model, system=system)

        else:
            items, instructions = to_responses(context)
            target = resolve_target(model)
            request = (items, instructions)

            def run() -> Any:
                return sanitize_responses(items, instructions, target)

    number = max(1, 4000 // len(session))
    ratio, _, _ = paired_ratio(lambda: copy.deepcopy(request), run, number)
    return ratio


async def run(cases: list[SessionCase], sizes: list[int], window: int, replay_all: bool) -> None:
    """Replay each case at each size against one stand-in and one hook; print the table."""
    sessions = {
        (source, steps): agent_session(steps, source)
        for source in {case.source for case in cases}
        for steps in sizes
    }
    gc.collect()
    litellm.suppress_debug_info = True
    stand_in = StandInProcess()
    hook = Hook()
    hook_times: dict[str, list[float]] = {}
    try:
        print(f"{describe()}, LiteLLM {_litellm_version()}, window {window} requests")
        print(
            f"{'case':<26} {'steps':>5} {'size':>5} {'off ms':>7} {'hook ms':>7}"
            f" {'added':>7} {'body':>7} {'hook':>7} {'xdeepcopy':>9}"
        )
        for case in cases:
            for steps in sizes:
                session = sessions[case.source, steps]
                gc.collect()
                started = time.perf_counter()
                m = await replay(case, session, hook, stand_in.base_url, window, replay_all)
                ratio = against_deepcopy(case, session)
                hook_times.setdefault(case.label, []).append(m.hook_ms)
                mark = "  missed" if steps == 200 and m.added > TARGET_ADDED else ""
                print(
                    f"{case.label:<26} {steps:>5} {m.size:>5} {m.off_ms:7.1f} {m.hook_ms:7.2f}"
                    f" {m.added:+7.1%} {m.body:+7.1%} {m.hook:+7.1%} {ratio:8.2f}x{mark}"
                    f"  ({time.perf_counter() - started:.0f} s)",
                    flush=True,
                )
    finally:
        stand_in.close()
    print("\nadded: (on - off) / off; body: (sent - off) / off; hook: (on - sent) / off;")
    print("hook ms: on - sent. Medians over the window's requests; size: the last request's.")
    print(f"goal: at most {TARGET_ADDED:.0%} added at 200 steps")
    if len(sizes) > 1:
        print(f"\nhook ms per request, {sizes[-1]} vs {sizes[0]} steps (goal <= {TARGET_GROWTH}x)")
        for label, times in hook_times.items():
            grew = times[-1] / times[0]
            mark = "" if grew <= TARGET_GROWTH else "  missed"
            print(f"{label:<26} {grew:6.2f}x{mark}")


def main() -> None:
    """Parse the command line and run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("steps", nargs="*", type=int, default=[50, 200])
    parser.add_argument("--window", type=int, default=12, help="requests per case and size")
    parser.add_argument("--cases", action="append", default=[], help="label contains WORD")
    parser.add_argument("--replay-all", action="store_true", help="send every request first")
    options = parser.parse_args()
    if options.window < 1 or any(steps < 2 for steps in options.steps):
        parser.error("--window must be at least 1, steps at least 2")
    cases = [c for c in CASES if not options.cases or any(w in c.label for w in options.cases)]
    try:
        asyncio.run(run(cases, sorted(options.steps), options.window, options.replay_all))
    except FileNotFoundError as missing:
        raise SystemExit(f"skipped: {missing}") from None


if __name__ == "__main__":
    main()
