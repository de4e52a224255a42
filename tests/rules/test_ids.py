"""Ids and signatures: each target gets ids it accepts, results follow their calls, and a
signature goes only where the model that made it is.

Cases of the id, pairing and signature rules (``tool_call_id``, ``tool_pairing``,
``non_base64_signature``, ``foreign_reasoning`` on signed ids and texts), each checked
against the full pipeline and the validator and as a fixed point where it says so.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from hypothesis import assume, given
from litellm.litellm_core_utils.prompt_templates.factory import (
    convert_to_gemini_tool_call_result,
)

from litellm_hygiene import (
    STAMP_KEY,
    resolve_target,
    sanitize_messages,
    validate_messages,
)
from litellm_hygiene._executor import read_slots
from litellm_hygiene._openai._wire import OPENAI
from litellm_hygiene._pipeline import context_for
from litellm_hygiene._rules import Conversation
from litellm_hygiene._rules.tool_pairing import ToolPairing
from tests.rules.test_rules_properties import SETTINGS, TARGETS, _readable
from tests.support.rule_cases import call as _call
from tests.support.rule_cases import checked as _checked
from tests.support.rule_cases import exchange as _exchange
from tests.support.rule_cases import fixed as _fixed
from tests.support.rule_cases import stamp as _stamp
from tests.support.strategies import agent_transcripts

SIGNATURE = base64.b64encode(b"gemini thought signature bytes").decode()


def _bare_call(call_id: str) -> dict[str, Any]:
    """A call as the property strategies write it: no ``type``, an empty name."""
    return {"id": call_id, "function": {"name": "", "arguments": "{}"}}


def _ids(messages: list[Any]) -> tuple[list[str], list[str]]:
    calls = [c["id"] for m in messages for c in m.get("tool_calls") or ()]
    results = [m["tool_call_id"] for m in messages if m["role"] == "tool"]
    return calls, results


_NOT_GEMINI = [
    "anthropic/claude-sonnet-4-5",
    "openai/gpt-4o",
    "bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0",
    "deepseek/deepseek-chat",
]
"""Targets LiteLLM strips ``__thought__`` signatures for, from calls and results alike."""


def _orphan() -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": "answers_nothing", "content": "stray"}


@pytest.mark.parametrize(
    "call_id", ["call_abc|fc_", "call_" + "a" * 30 + "|fc_" + "b" * 35], ids=["fc_", "73"]
)
def test_responses_pair_ids_are_renamed(call_id: str) -> None:
    out = _checked("openai/responses/gpt-5", _exchange(call_id))
    calls, results = _ids(out)
    assert calls == results
    assert calls[0] != call_id
    assert len(calls[0]) <= 64


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


def test_an_id_repeated_in_a_later_turn_is_renamed_for_anthropic() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": None, "tool_calls": [_call("toolu_1")]},
        {"role": "tool", "tool_call_id": "toolu_1", "content": "one"},
        {"role": "user", "content": "again"},
        {"role": "assistant", "content": None, "tool_calls": [_call("toolu_1")]},
        {"role": "tool", "tool_call_id": "toolu_1", "content": "two"},
        {"role": "user", "content": "n"},
    ]
    (violation,) = validate_messages(messages, "anthropic/claude-sonnet-4-5")
    assert (violation.code, violation.index) == ("tool_call_id", 4)
    assert violation.provider_error == "messages.3.content.0: `tool_use` ids must be unique"
    out, counts = _fixed("anthropic/claude-sonnet-4-5", messages)
    assert counts == {"tool_call_id": 1}
    first, second = out[1]["tool_calls"][0]["id"], out[4]["tool_calls"][0]["id"]
    assert first == "toolu_1" and second != first
    assert [out[2]["tool_call_id"], out[5]["tool_call_id"]] == [first, second]
    assert [out[2]["content"], out[5]["content"]] == ["one", "two"]
    # Other targets take an id again in a later turn.
    assert not sanitize_messages(messages, "openai/gpt-4o").report.changed


def test_a_lone_surrogate_in_a_tool_id_is_renamed_for_mistral() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": None, "tool_calls": [_call("call_\ud800x")]},
        {"role": "tool", "tool_call_id": "call_\ud800x", "content": "r"},
        {"role": "user", "content": "n"},
    ]
    out, counts = _fixed("mistral/mistral-large-latest", messages)
    assert counts["tool_call_id"] == 1
    new_id = out[1]["tool_calls"][0]["id"]
    assert new_id.isalnum() and len(new_id) == 9 and out[2]["tool_call_id"] == new_id


@pytest.mark.parametrize(
    ("stamp", "model"),
    [
        (
            {"provider": "vertex_ai", "api": "gemini", "model": "gemini-3-pro-preview"},
            "gemini/gemini-3-pro-preview",
        ),
        (
            {"provider": "gemini", "api": "gemini", "model": "gemini-3-pro-preview"},
            "vertex_ai/gemini-3-pro-preview",
        ),
    ],
    ids=["vertex-to-studio", "studio-to-vertex"],
)
def test_a_gemini_signature_does_not_cross_endpoints(stamp: dict[str, Any], model: str) -> None:
    signature = "c2lnbmVkIGJ5IG9uZSBlbmRwb2ludA=="
    call = {**_call("call_ab12"), "provider_specific_fields": {"thought_signature": signature}}
    turn = {"role": "assistant", "content": None, "tool_calls": [call], STAMP_KEY: stamp}
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "q"},
        turn,
        {"role": "tool", "tool_call_id": "call_ab12", "content": "r"},
    ]
    out, counts = _fixed(model, messages)
    assert counts["foreign_reasoning"] == 1
    assert signature not in json.dumps(out)
    # Back to the endpoint that made it, it is replayed as it was.
    same = {**stamp, "provider": model.split("/", 1)[0]}
    back = sanitize_messages([messages[0], {**turn, STAMP_KEY: same}, messages[2]], model)
    assert signature in json.dumps(back.messages)


def test_merging_a_foreign_turn_into_a_signed_gemini_turn_keeps_its_results_paired() -> None:
    """Item 1: the merge drops the signed id's signature; its result follows the new id.

    LiteLLM's Gemini converter pairs a result with its call by the whole id, byte for
    byte: a result still carrying ``__thought__`` finds no call and nothing is sent.
    """
    signature = "c2lnbmVkIGJ5IGdlbWluaQ=="
    call_id = f"call_ab12__thought__{signature}"
    claude = {"provider": "anthropic", "api": "anthropic-messages", "model": "claude-sonnet-4-5"}
    gemini = {"provider": "gemini", "api": "gemini", "model": "gemini-2.5-pro"}
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "Let me look.", STAMP_KEY: claude},
        {"role": "assistant", "content": None, "tool_calls": [_call(call_id)], STAMP_KEY: gemini},
        {"role": "tool", "tool_call_id": call_id, "content": "r"},
        {"role": "user", "content": "n"},
    ]
    out, counts = _fixed("gemini/gemini-2.5-pro", messages)
    assert counts["consecutive_turns"] == 1
    (turn,) = [m for m in out if m["role"] == "assistant"]
    (result,) = [m for m in out if m["role"] == "tool"]
    assert result["tool_call_id"] == turn["tool_calls"][0]["id"]
    part = convert_to_gemini_tool_call_result(result, turn)
    assert not isinstance(part, list)
    assert part["function_response"]["name"] == "f"


def test_parallel_gemini_calls_signed_on_the_first_only_are_one_same_model_turn() -> None:
    """How Gemini and LiteLLM return parallel calls (item 2): unstamped, still replayed."""
    signature = "c2lnbmVkIG9uIHRoZSBmaXJzdCBjYWxs"
    first = {
        **_call(f"call_aa11__thought__{signature}"),
        "provider_specific_fields": {"thought_signature": signature},
    }
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": None, "tool_calls": [first, _call("call_bb22")]},
        {"role": "tool", "tool_call_id": first["id"], "content": "1"},
        {"role": "tool", "tool_call_id": "call_bb22", "content": "2"},
        {"role": "user", "content": "n"},
    ]
    result = sanitize_messages(messages, "gemini/gemini-2.5-pro")
    assert not result.report.changed
    assert result.messages[1] is messages[1]


def test_merged_gemini_turns_keep_each_texts_signature_and_a_boundary() -> None:
    gemini = {"provider": "gemini", "api": "gemini", "model": "gemini-2.5-pro"}

    def turn(text: str, signature: str) -> dict[str, Any]:
        fields = {"thought_signatures": [signature]}
        return {
            "role": "assistant",
            "content": text,
            "provider_specific_fields": fields,
            STAMP_KEY: gemini,
        }

    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "q"},
        turn("a", "c2ln"),
        turn("b", "c2lnMg=="),
        {"role": "user", "content": "n"},
    ]
    out, counts = _fixed("gemini/gemini-2.5-pro", messages)
    assert counts == {"consecutive_turns": 1}
    assert out[1]["content"] == [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    assert out[1]["provider_specific_fields"] == {"thought_signatures": ["c2ln", "c2lnMg=="]}
    plain = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "Hello"},
        {"role": "assistant", "content": "world"},
        {"role": "user", "content": "n"},
    ]
    assert sanitize_messages(plain, "anthropic/claude-sonnet-4-5").messages[1] == {
        "role": "assistant",
        "content": "Hello\n\nworld",
    }
