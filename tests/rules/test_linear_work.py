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

from benchmarks.transcripts import MODELS, SANITIZE_CASES, Source, agent_transcript
from litellm_hygiene import resolve_target
from litellm_hygiene._integration import _request
from litellm_hygiene._integration._annotate import provenance_of
from litellm_hygiene._integration._options import HygieneOptions
from litellm_hygiene._integration._store import MemoryStore, put_fingerprints
from litellm_hygiene._integration._store import _fingerprints as _fingerprint
from litellm_hygiene._openai import _facts
from litellm_hygiene._resolve import target_of
from litellm_hygiene._rules import tool_call_id
from litellm_hygiene._sanitize import sanitize_for_target

_COMPILED = [
    m.__name__
    for m in (tool_call_id, _facts, _fingerprint)
    if m.__file__ and not m.__file__.endswith(".py")
]
pytestmark = pytest.mark.skipif(
    bool(_COMPILED),
    reason=f"{', '.join(_COMPILED)} run compiled: a profiler sees no call inside them",
)


SMALL, LARGE = 10, 80
"""Exchanges of the two transcripts compared (34 and 261 messages)."""
GROWTH = 1.03
"""The most the calls per message may grow from SMALL to LARGE exchanges."""
FEWEST = 20
"""The fewest calls per message a real request makes here (about 33 to 110): fewer
would mean the profiler no longer sees hygiene's work."""

Work = Callable[[list[dict[str, Any]]], Callable[[], Any]]
"""Given a transcript, a call doing hygiene's work on it (made outside the count)."""


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


def growth(work: Work, source: Source, stamped: bool) -> float:
    """Calls per message at LARGE exchanges over calls per message at SMALL."""
    per_message: list[float] = []
    for exchanges in (SMALL, LARGE):
        messages = agent_transcript(exchanges, source=source, stamp=stamped)
        work(messages)()  # caches (target resolution, compiled patterns) filled once
        per_message.append(calls(work(messages)) / len(messages))
    assert min(per_message) >= FEWEST, per_message
    return per_message[1] / per_message[0]


def sanitizing(target: str) -> Work:
    resolved = resolve_target(MODELS[target])
    return lambda messages: functools.partial(sanitize_for_target, messages, resolved)


@pytest.mark.parametrize(
    ("source", "stamped", "target"),
    [case[1:] for case in SANITIZE_CASES],
    ids=[case[0] for case in SANITIZE_CASES],
)
def test_sanitize_does_the_same_work_per_message_at_any_length(
    source: Source, stamped: bool, target: str
) -> None:
    ratio = growth(sanitizing(target), source, stamped)
    assert ratio <= GROWTH, f"{ratio:.3f}x the calls per message at {LARGE} exchanges"


@pytest.mark.parametrize("recorded", [False, True], ids=["never-seen", "recorded"])
@pytest.mark.parametrize(("source", "target"), [("claude", "claude"), ("claude", "mistral")])
def test_the_hooks_request_work_is_the_same_per_message_at_any_length(
    source: Source, target: str, recorded: bool
) -> None:
    """The hook's request work with its in-process store: unstamped turns looked up
    (found by their first key when recorded), then the rules."""
    options = HygieneOptions()

    def preparing(messages: list[dict[str, Any]]) -> Callable[[], Any]:
        kwargs = {"model": MODELS[target], "messages": messages}
        store = MemoryStore(max_entries=100_000)
        if recorded:
            provenance = provenance_of(resolve_target(MODELS[source]))
            for message in messages:
                if message["role"] == "assistant":
                    put_fingerprints(store, message, provenance)
        target_model = target_of(kwargs)
        return functools.partial(_request._prepare_here, kwargs, target_model, options, store)

    ratio = growth(preparing, source, False)
    assert ratio <= GROWTH, f"{ratio:.3f}x the calls per message at {LARGE} exchanges"


def _scanning(target: str, role: str | None) -> Work:
    """Hygiene's work, after each message (of ``role``) looks at every earlier one (of it)."""
    sanitize = sanitizing(target)

    def work(messages: list[dict[str, Any]]) -> Callable[[], Any]:
        def run() -> Any:
            picked = [m for m in messages if role is None or m["role"] == role]
            for position in range(len(picked)):
                for earlier in picked[:position]:
                    earlier.get("role")
            return sanitize(messages)()

        return run

    return work


@pytest.mark.parametrize("role", [None, "assistant"], ids=["every message", "assistant turns"])
def test_the_count_catches_work_that_grows_per_message(role: str | None) -> None:
    """The measure can fail: one lookup per earlier message (or earlier turn) trips it."""
    ratio = growth(_scanning("mistral", role), "claude", True)
    assert ratio > GROWTH, ratio
