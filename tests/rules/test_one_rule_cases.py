"""Regression tests for the cases of "One rule, one place" (issue 9).

Each case was once sent untouched by ``sanitize_messages`` while the full pipeline
rewrote it, or came out of the pipeline in a form the validator flagged or a second run
changed, or went out differently depending on unrelated messages. Each now: the hot path
equals the full pipeline, the output is valid for its target and a fixed point, and the
case's own expectation holds.
"""

from __future__ import annotations

import base64
import copy
from typing import Any

import pytest
from hypothesis import assume, given

from litellm_hygiene import (
    STAMP_KEY,
    from_openai,
    resolve_target,
    sanitize_messages,
    to_openai,
    transform_messages,
    validate_messages,
)
from litellm_hygiene._executor import read_slots
from litellm_hygiene._openai._wire import OPENAI
from litellm_hygiene._pipeline import context_for
from litellm_hygiene._rules import Conversation
from litellm_hygiene._rules.tool_pairing import ToolPairing
from tests.rules.test_rules_properties import SETTINGS, TARGETS, _readable
from tests.support.stamps import without_stamps
from tests.support.strategies import agent_transcripts

SIGNATURE = base64.b64encode(b"gemini thought signature bytes").decode()


def _call(call_id: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": "f", "arguments": "{}"}}


def _bare_call(call_id: str) -> dict[str, Any]:
    """A call as the property strategies write it: no ``type``, an empty name."""
    return {"id": call_id, "function": {"name": "", "arguments": "{}"}}


def _exchange(
    call_id: str, content: Any = "x", result_id: str | None = None, **extra: Any
) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": content, "tool_calls": [_call(call_id)], **extra},
        {"role": "tool", "tool_call_id": result_id or call_id, "content": "the result"},
        {"role": "user", "content": "next"},
    ]


def _stamp(provider: str, api: str, model: str) -> dict[str, Any]:
    return {STAMP_KEY: {"provider": provider, "api": api, "model": model}}


def _checked(model: str, messages: list[dict[str, Any]]) -> list[Any]:
    """The hot path's output, after checking it against the pipeline and the validator."""
    before = copy.deepcopy(messages)
    fast = sanitize_messages(messages, model)
    assert messages == before
    full = transform_messages(from_openai(messages), resolve_target(model))
    assert without_stamps(fast.messages) == without_stamps(to_openai(full.context))
    assert fast.report.counts() == full.report.counts()
    assert fast.report.changed
    assert validate_messages(fast.messages, model) == []
    again = sanitize_messages(fast.messages, model)
    assert not again.report.changed, again.report.counts()
    return fast.messages


def _ids(messages: list[Any]) -> tuple[list[str], list[str]]:
    calls = [c["id"] for m in messages for c in m.get("tool_calls") or ()]
    results = [m["tool_call_id"] for m in messages if m["role"] == "tool"]
    return calls, results


@pytest.mark.parametrize(
    "call_id", ["call_abc|fc_", "call_" + "a" * 30 + "|fc_" + "b" * 35], ids=["fc_", "73"]
)
def test_responses_pair_ids_are_renamed(call_id: str) -> None:
    out = _checked("openai/responses/gpt-5", _exchange(call_id))
    calls, results = _ids(out)
    assert calls == results
    assert calls[0] != call_id
    assert len(calls[0]) <= 64


_NOT_GEMINI = [
    "anthropic/claude-sonnet-4-5",
    "openai/gpt-4o",
    "bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0",
    "deepseek/deepseek-chat",
]
"""Targets LiteLLM strips ``__thought__`` signatures for, from calls and results alike."""


@pytest.mark.parametrize("signature", ["abcd", SIGNATURE])
@pytest.mark.parametrize("model", _NOT_GEMINI)
def test_unstamped_signed_gemini_id_loses_its_signature_and_its_result_follows(
    model: str, signature: str
) -> None:
    """Issue 27, item 2: the call came out as ``call_abcd``, its result kept the signed id.

    LiteLLM strips the suffix from both on the way out, so the wire was right; but the
    output, sent on by any other client (or to a Gemini model next), paired nothing.
    """
    out = _checked(model, _exchange(f"call_abcd__thought__{signature}"))
    calls, results = _ids(out)
    assert calls == results == ["call_abcd"]
    assert [m["content"] for m in out if m["role"] == "tool"] == ["the result"]


def test_a_result_carrying_a_signature_its_call_lacks_takes_the_calls_id() -> None:
    """The same mismatch sent by a client: the result is readdressed, with no wording."""
    messages = _exchange("call_abcd", result_id=f"call_abcd__thought__{SIGNATURE}")
    violations = validate_messages(messages, "openai/gpt-4o")
    assert [(v.index, v.code, v.provider_error) for v in violations] == [(2, "tool_pairing", None)]
    calls, results = _ids(_checked("openai/gpt-4o", messages))
    assert calls == results == ["call_abcd"]


@pytest.mark.parametrize("model", [*_NOT_GEMINI, "gemini/gemini-2.5-pro"])
def test_a_blank_part_dropped_beside_text_signatures_leaves_the_verdict_alone(
    model: str,
) -> None:
    """Issue 27, item 3 (a seeded fuzz): the output was not a fixed point.

    Two text parts and one Gemini signature did not line up, so the signature was no
    evidence and the unstamped turn was replayed; dropping the blank part made them line
    up, and the next run found Gemini's reasoning and signature in it and rewrote them.
    """
    turn: dict[str, Any] = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "  "},
            {"type": "text", "text": "done", "cache_control": {"type": "ephemeral"}},
        ],
        "reasoning_content": "thinking text",
        "provider_specific_fields": {
            "thought_signatures": ["tM8u2uhildh/+2Tp7fIZND7jwXZrQFxXD6hWI1ZY8us="]
        },
    }
    messages = [{"role": "user", "content": "q"}, turn, {"role": "user", "content": "n"}]
    out = _checked(model, messages)
    if model.startswith("gemini/"):  # Gemini's own: kept, only the blank part goes
        assert out[1]["reasoning_content"] == "thinking text"
        return
    assert "provider_specific_fields" not in out[1]
    assert "reasoning_content" not in out[1]
    assert out[1]["content"][0] == {"type": "text", "text": "thinking text"}
    assert out[1]["content"][-1] == turn["content"][1]


@pytest.mark.parametrize("content", ["", [{"type": "text", "text": ""}]], ids=["str", "part"])
def test_empty_text_beside_calls_goes_to_claude_as_no_content(content: Any) -> None:
    out = _checked("anthropic/claude-sonnet-4-5", _exchange("toolu_01", content))
    assert out[1]["content"] is None
    assert out[1]["tool_calls"] == [_call("toolu_01")]


def test_gemini_same_model_whitespace_thinking_is_treated_alike() -> None:
    turn = {
        "role": "assistant",
        "content": "a",
        "thinking_blocks": [{"type": "thinking", "thinking": " \n "}],
        **_stamp("gemini", "gemini", "gemini-2.5-pro"),
    }
    messages = [{"role": "user", "content": "hi"}, turn, {"role": "user", "content": "n"}]
    out = _checked("gemini/gemini-2.5-pro", messages)
    # The stamp stays: LiteLLM builds Gemini's contents from the keys it knows.
    assert out[1] == {
        "role": "assistant",
        "content": "a",
        **_stamp("gemini", "gemini", "gemini-2.5-pro"),
    }


@pytest.mark.parametrize("entry", [None, 7, "not base64!"])
@pytest.mark.parametrize("model", ["vertex_ai/gemini-3-pro-preview", "gemini/gemini-2.5-pro"])
def test_a_text_signature_no_text_lines_up_with_is_dropped_when_google_cannot_decode_it(
    model: str, entry: Any
) -> None:
    # Found by a longer campaign (HYGIENE_EXAMPLES=400) on the compiled wheel, and
    # the same in the pure build: with no text to line up with, the list stays as given
    # and the repair drops an entry that is not canonical base64, but the rule's check,
    # which both paths ask first, skipped an entry that is no string at all (None), so
    # the repair never ran.
    fields: dict[str, Any] = {"provider_specific_fields": {"thought_signatures": [entry]}}
    out = _checked(model, _exchange("call_1", None, **fields))
    assert not [m for m in out if "thought_signatures" in (m.get("provider_specific_fields") or {})]


@pytest.mark.parametrize(
    ("model", "stamp"),
    [
        (
            "openrouter/google/gemini-2.5-pro",
            _stamp("openrouter", "openai-compatible", "google/gemini-2.5-pro"),
        ),
        ("openrouter/google/gemini-2.5-pro", {}),
        ("gemini/gemini-2.5-pro", _stamp("vertex_ai", "gemini", "gemini-2.5-pro")),
    ],
    ids=["openrouter-stamped", "openrouter-unstamped", "vertex-to-gemini"],
)
def test_dropped_id_signature_keeps_the_result(model: str, stamp: dict[str, Any]) -> None:
    """A signature dropped from a call's id readdresses its result; nothing is lost."""
    out = _checked(model, _exchange(f"call_abcd__thought__{SIGNATURE}", **stamp))
    calls, results = _ids(out)
    assert calls == results == ["call_abcd"]
    assert [m["content"] for m in out if m["role"] == "tool"] == ["the result"]


@pytest.mark.parametrize(
    ("call_id", "result_id"),
    [(f"call_abcd__thought__{SIGNATURE}", "call_abcd"), ("call_abcd", "call_abcd__thought__c2ln")],
    ids=["result-bare", "result-signed"],
)
def test_gemini_result_echoes_the_call_id_as_sent(call_id: str, result_id: str) -> None:
    """LiteLLM's Gemini converter pairs byte for byte: the result takes the call's id."""
    stamp = _stamp("gemini", "gemini", "gemini-2.5-pro")
    out = _checked("gemini/gemini-2.5-pro", _exchange(call_id, result_id=result_id, **stamp))
    calls, results = _ids(out)
    assert calls == results == [call_id]
    assert [m["content"] for m in out if m["role"] == "tool"] == ["the result"]


def _orphan() -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": "answers_nothing", "content": "stray"}


@pytest.mark.parametrize("model", TARGETS)
@SETTINGS
@given(messages=agent_transcripts)
def test_output_does_not_depend_on_unrelated_messages(
    model: str, messages: list[dict[str, Any]]
) -> None:
    """A stray result at the end (which a rule drops) changes nothing before it."""
    dirty = [*messages, _orphan()]
    assume(_readable(dirty, model))
    clean = sanitize_messages(messages, model).messages
    assert sanitize_messages(dirty, model).messages == clean


@pytest.mark.parametrize("model", TARGETS)
@SETTINGS
@given(messages=agent_transcripts)
def test_no_real_result_is_lost(model: str, messages: list[dict[str, Any]]) -> None:
    """Each result that answers a distinct call (in some form of its id) goes out."""
    marked = [
        {**m, "content": f"result {i}"} if m["role"] == "tool" else m
        for i, m in enumerate(messages)
    ]
    calls = [c["id"] for m in marked for c in m.get("tool_calls") or ()]
    bare = [c.partition("__thought__")[0] for c in calls]
    assume(_readable(marked, model) and "" not in bare and len(set(bare)) == len(bare))
    results = [m for m in marked if m["role"] == "tool"]
    answered = [r for r in results if r["tool_call_id"].partition("__thought__")[0] in bare]
    answered_ids = [r["tool_call_id"].partition("__thought__")[0] for r in answered]
    assume(len(set(answered_ids)) == len(answered_ids))
    out = sanitize_messages(marked, model).messages
    sent = {m["content"] for m in out if m["role"] == "tool"}
    assert {r["content"] for r in answered} <= sent


# -- output shapes that are cheap for what LiteLLM does next ------------------------------

_CLAUDE = _stamp("anthropic", "anthropic-messages", "claude-sonnet-4-5")
_SIGNED = {"type": "thinking", "thinking": "I should look.", "signature": "c2lnbmF0dXJl"}


@pytest.mark.parametrize("model", ["openai/gpt-4o", "mistral/mistral-large-latest"])
def test_foreign_thinking_joins_string_content_as_one_string(model: str) -> None:
    """LiteLLM's OpenAI path handles a string far faster than a list of text parts."""
    messages = _exchange("call_abc123XYZ", "Looking.", thinking_blocks=[_SIGNED], **_CLAUDE)
    out = _checked(model, messages)
    assert out[1]["content"] == "I should look.\n\nLooking."
    assert "thinking_blocks" not in out[1]


def test_foreign_thinking_keeps_list_content_as_parts() -> None:
    """Content the caller sent as parts keeps its parts: only the thinking is added.

    It ends with a blank line: LiteLLM joins the parts with nothing between for Mistral.
    """
    parts = [{"type": "text", "text": "Looking."}, {"type": "text", "text": "Still."}]
    messages = _exchange("call_abc", parts, thinking_blocks=[_SIGNED], **_CLAUDE)
    out = _checked("openai/gpt-4o", messages)
    assert out[1]["content"] == [{"type": "text", "text": "I should look.\n\n"}, *parts]


@pytest.mark.parametrize(
    ("model", "content"),
    [
        # OpenAI takes blank text: it stays as it was, beside the thinking.
        (
            "openai/gpt-4o",
            [{"type": "text", "text": "I should look."}, {"type": "text", "text": "  "}],
        ),
        # Anthropic does not: the empty-content rule drops it, and one string remains.
        ("anthropic/claude-sonnet-4-5", "I should look."),
    ],
)
def test_foreign_thinking_is_never_joined_to_blank_text(model: str, content: Any) -> None:
    gemini = _stamp("gemini", "gemini", "gemini-2.5-pro")
    turn: dict[str, Any] = {"reasoning_content": "I should look.", "provider_specific_fields": {}}
    messages = _exchange("call_abc", "  ", **turn, **gemini)
    out = _checked(model, messages)
    assert out[1]["content"] == content


@pytest.mark.parametrize("model", ["deepseek/deepseek-chat", "mistral/mistral-large-latest"])
def test_a_legacy_function_result_answering_a_renamed_call_follows_it(model: str) -> None:
    """Found by a seeded 600-example run: a repeated id, answered by a ``function`` result."""

    messages: list[dict[str, Any]] = [
        {"role": "system", "content": ""},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [_bare_call(i) for i in ("call_0000", "toolu_000000", "toolu_000000")],
        },
        {"role": "function", "name": "", "content": None, "tool_call_id": "toolu_000000"},
    ]
    out = _checked(model, messages)
    calls, _ = _ids(out)
    answers = [m["tool_call_id"] for m in out if m["role"] in ("tool", "function")]
    assert answers == calls


@pytest.mark.parametrize(
    "model",
    ["openrouter/mistralai/mistral-large", "anthropic/claude-sonnet-4-5", "gemini/gemini-2.5-pro"],
)
def test_a_legacy_function_result_under_another_form_of_its_call_id_is_readdressed(
    model: str,
) -> None:
    """Found by an unseeded property run: LiteLLM drops a ``__thought__`` signature from a
    ``tool`` result's id but not from a ``function`` result's, so a function result is
    readdressed to the call's pairing key, not to its id as given (which left it
    unanswered, and the rule finding it again in its own fix)."""

    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "q"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                _bare_call(i) for i in ("call_0000", "call_1000__thought__", "call_0000")
            ],
        },
        {"role": "user", "content": ""},
        {"role": "function", "name": "", "content": None, "tool_call_id": "call_1000__thought__"},
    ]
    target = resolve_target(model)
    ctx = context_for(target)
    conv = Conversation(read_slots(messages, ctx, OPENAI), ctx, OPENAI)
    rule = ToolPairing()
    found = rule.find(conv)
    assert found
    assert rule.find(rule.fix(conv, found)) == []
    _checked(model, messages)


# -- text signatures that no longer line up with the texts (issue 27, item 3's family) ----


@pytest.mark.parametrize(
    ("model", "texts", "listed"),
    [
        ("gemini/gemini-2.5-pro", ["", "", "a"], ["c2ln", "c2ln", "msg_01abc"]),
        ("vertex_ai/gemini-3-pro-preview", ["a", ""], ["msg_01abc", "c2ln"]),
    ],
)
def test_a_text_signature_dropped_beside_kept_ones_unsigns_every_text(
    model: str, texts: list[str], listed: list[str]
) -> None:
    """Found by the extended generators (300 examples): not a fixed point.

    Google cannot decode one signature, so it goes; the others were kept on their
    texts, signed empty texts among them, which Gemini takes. But the signatures left
    travel as one list that no longer lines up with the texts: read back, no text is
    signed, and the next run dropped the empty ones.
    """
    turn: dict[str, Any] = {
        "role": "assistant",
        "content": [{"type": "text", "text": t} for t in texts],
        "provider_specific_fields": {"thought_signatures": listed},
    }
    messages = [{"role": "user", "content": "q"}, turn, {"role": "user", "content": "n"}]
    out = _checked(model, messages)
    assert out[1]["content"] == [{"type": "text", "text": "a"}]
    kept = [s for s in listed if s != "msg_01abc"]
    assert out[1]["provider_specific_fields"] == {"thought_signatures": kept}


def test_a_signed_blank_gemini_turn_merged_with_an_unsigned_one_is_a_fixed_point() -> None:
    """The merge wrote the signed blank text beside an unsigned one: read back, unsigned."""
    gemini = _stamp("gemini", "gemini", "gemini-2.5-pro")
    signed = {
        "role": "assistant",
        "content": [{"type": "text", "text": " "}],
        "provider_specific_fields": {"thought_signatures": ["c2ln"]},
        **gemini,
    }
    messages = [
        {"role": "user", "content": "q"},
        signed,
        {"role": "assistant", "content": "b", **gemini},
        {"role": "user", "content": "n"},
    ]
    out = _checked("gemini/gemini-2.5-pro", messages)
    assert out[1]["content"] == [{"type": "text", "text": "b"}]
    assert out[1]["provider_specific_fields"] == {"thought_signatures": ["c2ln"]}


def test_a_signed_blank_part_unsigned_by_a_merge_goes_as_empty_text_goes() -> None:
    """Found by the extended generators: output not valid for Gemini, nor a fixed point.

    Gemini's turn keeps its signed empty text (Gemini takes it); merged with another
    model's turn it is foreign, and loses the signature. The merge left out blank texts
    only when they carried nothing else: this one, marked for caching, stayed, empty.
    """
    claude = _stamp("anthropic", "anthropic-messages", "claude-sonnet-4-5")
    gemini_turn = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "b"},
            {"type": "text", "text": "", "cache_control": {"type": "ephemeral"}},
        ],
        "provider_specific_fields": {"thought_signatures": ["c2ln", "c2ln"]},
    }
    messages = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "a", **claude},
        gemini_turn,
        {"role": "user", "content": "n"},
    ]
    out = _checked("gemini/gemini-2.5-pro", messages)
    assert out[1]["content"] == [
        {"type": "text", "text": "a"},
        {"type": "text", "text": "b", "cache_control": {"type": "ephemeral"}},
    ]


@pytest.mark.parametrize("kept", [{"reasoning_items": []}, {"thinking_blocks": []}])
@pytest.mark.parametrize(
    "model", ["bedrock/converse/us.anthropic.claude-3-7-sonnet-20250219-v1:0", "gpt-4o"]
)
def test_a_turn_the_rules_would_drop_merged_into_the_next_leaves_its_response_keys(
    model: str, kept: dict[str, Any]
) -> None:
    """Found by the property tests: the output was not a fixed point.

    A turn of empty thinking and an empty response-only list (kept as it is by the
    decoder) follows its own model's turn with a call; merged, the rules ahead of the
    merge dropped the thinking but the merge took the first turn's keys as they were,
    and the next run removed the list.
    """
    messages = [
        {"role": "user", "content": "q"},
        {
            "role": "assistant",
            "content": "",
            "thinking_blocks": [{"type": "thinking", "thinking": "", "signature": ""}],
            **kept,
        },
        {"role": "assistant", "content": None, "tool_calls": [_call("call_0000")]},
        {"role": "tool", "tool_call_id": "call_0000", "content": "r"},
    ]
    out = _checked(model, messages)
    merged = [m for m in out if m["role"] == "assistant"]
    assert len(merged) == 1 or model == "gpt-4o"
    assert all(kept.keys().isdisjoint(m) for m in merged)
