"""Hygiene's work per message does not grow with the transcript.

Issue "One rule, one place" asks for a per-message cost within 1.25x from 50 to 1,000
exchanges. Time is measured in ``benchmarks/`` and never asserted; the work itself can
be counted, and that count is exact: every Python function and every C function called
while hygiene handles a request (``sys.setprofile``'s ``call`` and ``c_call`` events).
A rule that walks earlier messages for each message, rebuilds a list per finding or
looks a turn up by scanning makes the count per message grow with the transcript; a
linear one keeps it flat (its fixed cost per request only shrinks per message).

Measured on the benchmark's agent transcripts (signed thinking, parallel tool calls,
user turns after tool results) for every benchmark case, through ``sanitize_messages``'
core and through the hook's request path with its in-process store.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

import pytest

from benchmarks.transcripts import MODELS, Source, agent_transcript
from litellm_hygiene import resolve_target
from litellm_hygiene._integration._annotate import provenance_of
from litellm_hygiene._integration._fingerprint import fingerprints
from litellm_hygiene._integration._options import HygieneOptions
from litellm_hygiene._integration._request import _prepare_here, target_of
from litellm_hygiene._integration._store import MemoryStore
from litellm_hygiene._sanitize import sanitize_for_target

SMALL, LARGE = 10, 80
"""Exchanges of the two transcripts compared (33 and 261 messages)."""
GROWTH = 1.03
"""The most the calls per message may grow from SMALL to LARGE exchanges."""

# (source, stamped, target): the cases of benchmarks/bench_hygiene.py.
CASES: list[tuple[Source, bool, str]] = [
    ("claude", False, "claude"),
    ("claude", True, "claude"),
    ("gemini", True, "gemini"),
    ("claude", True, "gpt"),
    ("claude", True, "mistral"),
    ("claude", True, "gemini"),
    ("gemini", True, "claude"),
    ("gpt", True, "claude"),
]


def calls(run: Callable[[], Any]) -> int:
    """The Python and C function calls ``run()`` makes (and its own)."""
    count = 0

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal count
        if event == "call" or event == "c_call":
            count += 1

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(previous)
    return count


def growth(work: Callable[[list[dict[str, Any]]], Any], source: Source, stamped: bool) -> float:
    """Calls per message at LARGE exchanges over calls per message at SMALL."""
    per_message: list[float] = []
    for exchanges in (SMALL, LARGE):
        messages = agent_transcript(exchanges, source=source, stamp=stamped)
        work(messages)  # caches (target resolution, compiled patterns) filled once
        per_message.append(calls(functools.partial(work, messages)) / len(messages))
    return per_message[1] / per_message[0]


@pytest.mark.parametrize(("source", "stamped", "target"), CASES)
def test_sanitize_does_the_same_work_per_message_at_any_length(
    source: Source, stamped: bool, target: str
) -> None:
    resolved = resolve_target(MODELS[target])
    ratio = growth(lambda m: sanitize_for_target(m, resolved), source, stamped)
    assert ratio <= GROWTH, f"{ratio:.3f}x the calls per message at {LARGE} exchanges"


@pytest.mark.parametrize("recorded", [False, True], ids=["never-seen", "recorded"])
@pytest.mark.parametrize(("source", "target"), [("claude", "claude"), ("claude", "mistral")])
def test_the_hooks_request_work_is_the_same_per_message_at_any_length(
    source: Source, target: str, recorded: bool
) -> None:
    """Unstamped turns looked up in the in-process store, then the rules."""
    options = HygieneOptions()

    def prepare(messages: list[dict[str, Any]]) -> Any:
        kwargs = {"model": MODELS[target], "messages": messages}
        store = MemoryStore(max_entries=100_000)
        if recorded:
            provenance = provenance_of(resolve_target(MODELS[source]))
            for message in messages:
                if message["role"] == "assistant":
                    store.put(fingerprints(message), provenance)
        return lambda: _prepare_here(kwargs, target_of(kwargs), options, store)

    per_message = []
    for exchanges in (SMALL, LARGE):
        messages = agent_transcript(exchanges, source=source, stamp=False)
        prepare(messages)()  # caches filled once, in a store of its own
        per_message.append(calls(prepare(messages)) / len(messages))
    ratio = per_message[1] / per_message[0]
    assert ratio <= GROWTH, f"{ratio:.3f}x the calls per message at {LARGE} exchanges"


def _scanning(resolved: Any, role: str | None) -> Callable[[list[dict[str, Any]]], Any]:
    """``sanitize``, after each message (of ``role``) looks at every earlier one (of it)."""

    def run(messages: list[dict[str, Any]]) -> Any:
        picked = [m for m in messages if role is None or m["role"] == role]
        for position in range(len(picked)):
            for earlier in picked[:position]:
                earlier.get("role")
        return sanitize_for_target(messages, resolved)

    return run


@pytest.mark.parametrize("role", [None, "assistant"], ids=["every message", "assistant turns"])
def test_the_count_catches_work_that_grows_per_message(role: str | None) -> None:
    """The measure can fail: one lookup per earlier message (or earlier turn) trips it."""
    resolved = resolve_target(MODELS["mistral"])
    ratio = growth(_scanning(resolved, role), "claude", True)
    assert ratio > GROWTH, ratio
