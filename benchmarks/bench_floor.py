"""The least any callback can add: a bare rewrite of hygiene's output, timed beside it.

Issue "One rule, one place" asks that the hook add at most 10 % to LiteLLM's own
``acompletion`` time at 200 exchanges. Part of what the hook adds is not its own work:
LiteLLM spends more or less on hygiene's messages than on the caller's (bench_acompletion's
*body*). This benchmark asks how much of the rest any implementation must spend. Its
*floor* is a callback on the hook's entry point that writes the very messages hygiene
sends (ids aside: it hashes them its own way) with nothing else: one pass over the
dicts, written for this transcript shape and no other, with no reading of provenance,
no check of any rule, no report, no metrics and no work after the call. It is a
yardstick, not a rule: it is right only for these transcripts, and
:func:`same_but_ids` checks, before the rounds, that it sends what hygiene sends.

Each round sends one request four ways (``off``: no callback; ``on``: the shipped
callback; ``sent``: a callback handing LiteLLM hygiene's messages, captured once;
``floor``: the bare rewrite), every order of the four in turn. Printed: the median over
rounds of ``(mode - off) / off`` for each mode, and the floor's own time inside
LiteLLM's request.

Run: LITELLM_LOCAL_MODEL_COST_MAP=True python benchmarks/bench_floor.py [exchanges ...]
     [--rounds N] (default 10 50 200 exchanges, 48 rounds: a multiple of 24 gives every
     order the same share). Prints; asserts nothing but the floor's faithfulness.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import litellm
from bench_acompletion import (
    TARGET_OVERHEAD,
    Hook,
    Registration,
    StandInProcess,
    _arguments,
    _litellm_version,
    _Substitute,
    interleaved,
    timed,
    what_the_hook_sends,
)
from litellm.integrations.custom_logger import CustomLogger
from machine import describe
from transcripts import SANITIZE_CASES, Source, agent_transcript

from litellm_hygiene import STAMP_KEY
from litellm_hygiene._rules.turn_order import BRIDGE_TEXT

Rewrite = Callable[[list[dict[str, Any]]], list[dict[str, Any]]]

_DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _nine(old: str) -> str:
    """Nine base-62 characters from a hash of ``old`` (Mistral's id shape)."""
    number = int.from_bytes(hashlib.sha256(old.encode()).digest()[:8], "big")
    out = []
    for _ in range(9):
        number, digit = divmod(number, 62)
        out.append(_DIGITS[digit])
    return "".join(out)


def _thinking_as_text(message: dict[str, Any]) -> dict[str, Any]:
    """A copy of an assistant turn with its thinking put before its text."""
    out = dict(message)
    out.pop("reasoning_content", None)
    out.pop(STAMP_KEY, None)
    blocks = out.pop("thinking_blocks", None)
    if blocks:
        text = "\n\n".join(b["thinking"] for b in blocks if b.get("type") == "thinking")
        content = out.get("content")
        out["content"] = f"{text}\n\n{content}" if content else text
    return out


def floor_for_gpt(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Claude's agent transcript for GPT: thinking becomes text, and nothing else."""
    return [_thinking_as_text(m) if m["role"] == "assistant" else m for m in messages]


def floor_for_mistral(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Claude's transcript for Mistral: thinking as text, 9-character ids, bridges, prefix."""
    out: list[dict[str, Any]] = []
    ids: dict[str, str] = {}
    previous = ""
    for message in messages:
        role = message["role"]
        if role == "assistant":
            message = _thinking_as_text(message)
            calls = message.get("tool_calls")
            if calls:
                renamed = []
                for call in calls:
                    new = ids[call["id"]] = _nine(call["id"])
                    renamed.append({**call, "id": new})
                message["tool_calls"] = renamed
        elif role == "tool":
            message = {**message, "tool_call_id": ids[message["tool_call_id"]]}
        elif role == "user" and previous == "tool":
            out.append({"role": "assistant", "content": BRIDGE_TEXT})
        previous = role
        out.append(message)
    if previous == "assistant":  # Mistral continues a last assistant turn as a prefix
        out[-1] = {"prefix": True, **out[-1]}
    return out


FLOORS: dict[str, Rewrite] = {
    "cross-model claude -> mistral": floor_for_mistral,
    "cross-model claude -> gpt": floor_for_gpt,
}
"""The bare rewrite of each case it is written for (bench_acompletion's, stamped turns)."""
CASES = [(case, FLOORS[case[0]]) for case in SANITIZE_CASES if case[0] in FLOORS]


def same_but_ids(floor: list[dict[str, Any]], hygiene: list[dict[str, Any]]) -> str | None:
    """Where the floor's messages differ from hygiene's, ids aside; ``None``: nowhere.

    Ids may differ in value only: each call's id must pair with the results hygiene
    pairs it with, in both lists alike.
    """
    if len(floor) != len(hygiene):
        return f"{len(floor)} messages against hygiene's {len(hygiene)}"
    floor_ids: dict[str, str] = {}
    for index, (mine, theirs) in enumerate(zip(floor, hygiene, strict=True)):
        if _without_ids(mine) != _without_ids(theirs):
            return f"message {index} differs"
        for a, b in zip(mine.get("tool_calls") or (), theirs.get("tool_calls") or (), strict=True):
            if floor_ids.setdefault(a["id"], b["id"]) != b["id"]:
                return f"message {index}: call ids pair differently"
        if "tool_call_id" in mine and floor_ids.get(mine["tool_call_id"]) != theirs.get(
            "tool_call_id"
        ):
            return f"message {index}: the result answers another call"
    return None


def _without_ids(message: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in message.items() if k != "tool_call_id"}
    if "tool_calls" in out:
        out["tool_calls"] = [{k: v for k, v in c.items() if k != "id"} for c in out["tool_calls"]]
    return out


class _Floor(CustomLogger):
    """The bare rewrite on the hook's entry point, timing itself."""

    def __init__(self, rewrite: Rewrite) -> None:
        super().__init__()
        self.rewrite = rewrite
        self.seconds: list[float] = []

    async def async_pre_call_deployment_hook(
        self, kwargs: dict[str, Any], call_type: Any
    ) -> dict[str, Any] | None:
        start = time.perf_counter()
        new = {**kwargs, "messages": self.rewrite(kwargs["messages"])}
        self.seconds.append(time.perf_counter() - start)
        return new


_MODES = ("off", "on", "sent", "floor")


async def measure(
    base_url: str,
    case: tuple[str, Source, bool, str],
    rewrite: Rewrite,
    exchanges: int,
    rounds: int,
) -> dict[str, float]:
    """The median ratio to ``off`` of each mode, and the floor's own median time (ms)."""
    _, source, stamp, target = case
    messages = agent_transcript(exchanges, source=source, stamp=stamp)
    sent = await what_the_hook_sends(messages, target, base_url)
    wrong = same_but_ids(rewrite(messages), sent)
    if wrong is not None:
        raise SystemExit(f"the floor does not send what hygiene sends: {wrong}")
    floor = _Floor(rewrite)
    registered: dict[str, Registration | None] = {
        "off": None,
        "on": Hook(),
        "sent": Registration(_Substitute({"messages": sent})),
        "floor": Registration(floor),
    }
    send = functools.partial(timed, messages, target, base_url)
    times = await interleaved(registered, send, rounds)
    off = times["off"]
    out = {
        mode: statistics.median([(t - o) / o for o, t in zip(off, times[mode], strict=True)])
        for mode in _MODES[1:]
    }
    out["off_ms"] = statistics.median(off) * 1e3
    out["floor_ms"] = statistics.median(floor.seconds[1:]) * 1e3  # round -1 warms
    return out


async def run(exchanges: int, rounds: int) -> None:
    litellm.suppress_debug_info = True
    stand_in = StandInProcess()
    try:
        print(f"{describe()}, LiteLLM {_litellm_version()}, {exchanges} exchanges, {rounds} rounds")
        print(f"{'case':<32} {'off ms':>7} {'on':>7} {'sent':>7} {'floor':>7} {'floor ms':>9}")
        for case, rewrite in CASES:
            m = await measure(stand_in.base_url, case, rewrite, exchanges, rounds)
            print(
                f"{case[0]:<32} {m['off_ms']:7.1f} {m['on']:+7.1%} {m['sent']:+7.1%}"
                f" {m['floor']:+7.1%} {m['floor_ms']:9.2f}"
            )
        print("\non, sent, floor: (mode - off) / off, medians over rounds; floor ms: the bare")
        print("rewrite's own time inside LiteLLM's request.")
        print(f"target (on): at most {TARGET_OVERHEAD:.0%}")
    finally:
        stand_in.close()


def main(argv: list[str]) -> None:
    sizes, rounds = _arguments(argv)
    for exchanges in sizes:
        asyncio.run(run(exchanges, rounds or 48))


if __name__ == "__main__":
    main(sys.argv[1:])
