"""Fuzzing the callback's request hook with valid, odd and malformed transcripts.

For every target family, through ``HygieneCallback.async_pre_call_deployment_hook`` (the
hook LiteLLM calls) in its default fail-open mode:

- the hook never raises, never fails internally (``stats["errors"]`` stays 0) and never
  gives a request up: a message it cannot read is kept as it came, at its place, and
  reported (``unread``), and the rest is transformed;
- the output is valid for its target but for the messages kept unread (the validator
  names exactly those), and is a fixed point (sent through the hook again, nothing
  changes);
- the caller's messages are never mutated;
- nothing hygiene logs, at any level, holds message content or the API key.

CI runs a bounded number of examples (``HYGIENE_FUZZ_EXAMPLES``, 12 per target by
default; derandomized under ``CI=true``) and prints the counts; a long campaign:
``HYGIENE_FUZZ_EXAMPLES=2000 LITELLM_LOCAL_MODEL_COST_MAP=True .venv/bin/pytest
tests/rules/test_fuzz.py``.
"""

from __future__ import annotations

import asyncio
import copy
import os
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings

from litellm_hygiene import HygieneCallback, validate_messages
from tests.rules import test_rules_properties as rules_properties
from tests.support.fuzz_strategies import fuzz_transcripts, long_transcripts
from tests.support.hygiene_log import LogLines, hygiene_log

TARGETS: list[str] = rules_properties.TARGETS
EXAMPLES = int(os.environ.get("HYGIENE_FUZZ_EXAMPLES", "12"))
API_KEY = "sk-fuzz-0123456789abcdef-KEY"
COUNTS: Counter[str] = Counter()
"""Outcomes over the whole module, printed at its end."""

_VOCABULARY = re.compile(r"[a-z_./:-]*")
"""Strings that may legitimately appear in log lines (rule codes, roles, model names)."""


@pytest.fixture(scope="module", autouse=True)
def _printed_counts(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    plugins = request.config.pluginmanager
    reporter = plugins.get_plugin("terminalreporter")
    capture = plugins.get_plugin("capturemanager")
    if reporter is None or capture is None or not COUNTS:
        return
    summary = ", ".join(f"{key}={value}" for key, value in sorted(COUNTS.items()))
    with capture.global_and_fixture_disabled():  # shown in CI's log, not only with -s
        reporter.write_line(f"\ntests/rules/test_fuzz.py examples: {summary}")


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    try:
        yield loop
    finally:
        loop.run_until_complete(loop.shutdown_default_executor())
        loop.close()


@pytest.fixture(scope="module")
def captured() -> Iterator[LogLines]:
    """Every record of hygiene's logger, at every level (DEBUG and up)."""
    with hygiene_log() as lines:
        yield lines


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _sensitive(messages: list[Any], model: str) -> set[str]:
    """The input's strings that must never be logged (content, ids, signatures, data)."""
    return {
        s
        for s in _strings(messages)
        if len(s) >= 8 and not _VOCABULARY.fullmatch(s) and s not in model
    }


def _hook(
    loop: asyncio.AbstractEventLoop, callback: HygieneCallback, model: str, messages: Any
) -> tuple[Any, Any]:
    """The messages LiteLLM would send after the hook, and the hook's report."""
    kwargs = {"model": model, "messages": messages, "api_key": API_KEY, "litellm_call_id": "f"}
    new = loop.run_until_complete(callback.async_pre_call_deployment_hook(kwargs, "acompletion"))
    report = callback.report_for("f")
    assert report is not None
    return (messages if new is None else new["messages"]), report


def _unreadable(messages: list[Any]) -> list[Any]:
    """The messages the validator cannot read (each must go out as it came)."""
    found = validate_messages(messages, "openai/gpt-4o")
    return [
        messages[v.index] for v in found if v.code == "malformed_message" and v.index is not None
    ]


def check_hook(
    loop: asyncio.AbstractEventLoop, captured: LogLines, model: str, messages: list[Any]
) -> str:
    """Run the hook on ``messages`` and check every property; the outcome's name."""
    callback = HygieneCallback()
    before = copy.deepcopy(messages)
    captured.lines.clear()
    sent, report = _hook(loop, callback, model, messages)
    assert messages == before, "the caller's messages were mutated"
    assert callback.stats["errors"] == 0, dict(callback.stats)
    assert report.error is None, report.error  # never given up on
    found = validate_messages(sent, model)
    kept = [v for v in found if v.code == "malformed_message"]
    assert found == kept, "output not valid for its target"
    assert len(kept) == len(report.unread), (kept, report.unread)
    unreadable = _unreadable(messages)
    assert len(kept) == len(unreadable), "an unreadable message was lost"
    assert all(v.index is not None and sent[v.index] in unreadable for v in kept)
    again, second = _hook(loop, callback, model, sent)
    assert second.error is None and second.changes == {}, second.changes
    assert again is sent or again == sent
    if report.unread:
        outcome = "unreadable_kept"
    else:
        outcome = "readable_changed" if report.changes else "readable_unchanged"
    logged = "\n".join(captured.lines)
    assert API_KEY not in logged
    leaked = [s for s in _sensitive(messages, model) if s in logged]
    assert not leaked, f"logged content: {leaked[:3]!r}"
    return outcome


@pytest.mark.parametrize("model", TARGETS)
@settings(max_examples=EXAMPLES, deadline=None)
@given(messages=fuzz_transcripts)
def test_the_hook_holds_on_valid_odd_and_malformed_transcripts(
    loop: asyncio.AbstractEventLoop, captured: LogLines, model: str, messages: list[Any]
) -> None:
    COUNTS[check_hook(loop, captured, model, messages)] += 1


LONG_TARGETS = [
    "anthropic/claude-sonnet-4-5",
    "gemini/gemini-2.5-pro",
    "gpt-4o",
    "mistral/mistral-large-latest",
]


@pytest.mark.parametrize("model", LONG_TARGETS)
@settings(max_examples=max(1, EXAMPLES // 6), deadline=None)
@given(messages=long_transcripts)
def test_ten_thousand_messages(
    loop: asyncio.AbstractEventLoop, captured: LogLines, model: str, messages: list[Any]
) -> None:
    assert len(messages) >= 9_000
    COUNTS[f"long_{check_hook(loop, captured, model, messages)}"] += 1
