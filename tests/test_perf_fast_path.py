"""The hot path's shortcuts give exactly what the full pipeline gives.

``sanitize_for_target`` answers most requests without the pipeline: a scan over the
dicts proves a request clean (sent as is) or clean but for its provenance stamps (sent
as shallow copies without them), and the decoder and passes build the neutral model
without re-validating what they have checked. Each shortcut is held here against the
slow, obvious oracle: the validator for the scan, ``transform_all`` for the result, and
pydantic validation for every object built without it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from litellm_hygiene import (
    STAMP_KEY,
    IdRule,
    from_openai,
    policy_for,
    resolve_target,
    transform_messages,
    validate_for_target,
)
from litellm_hygiene._messages import CONTEXT_ADAPTER
from litellm_hygiene._passes._attribute import attribute_provenance
from litellm_hygiene._passes._base import Messages, Pass, PassContext
from litellm_hygiene._passes._pairing import _already_paired, _repair
from litellm_hygiene._passes._tool_ids import _nothing_to_rename, _rename
from litellm_hygiene._passes._turns import _in_order, _reorder
from litellm_hygiene._pipeline import PIPELINE
from litellm_hygiene._sanitize import sanitize_for_target, transform_all
from litellm_hygiene._target import TargetModel
from litellm_hygiene._validate_report import Request
from litellm_hygiene._validate_rules import check_tool_ids, tool_id_fits
from litellm_hygiene._validate_scan import scan_request

from .strategies import transcripts
from .test_properties_pipeline import TARGETS

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
SIG = "EqQBCkgIAxABGAIiQL0t1cJmUMqzNvJ0MPLKbFQyB7gqEpOPh0hY0y4xeA=="
OTHER = {"provider": "openai", "api": "openai-chat", "model": "gpt-4o"}


def _stamp_of(target: TargetModel) -> dict[str, Any]:
    return {"provider": target.provider, "api": target.api, "model": target.model_id}


IDS = st.one_of(
    st.from_regex(r"call_[A-Za-z0-9]{4,8}", fullmatch=True),
    st.from_regex(r"toolu_[A-Za-z0-9]{6,10}", fullmatch=True),
    st.from_regex(r"[A-Za-z0-9]{9}", fullmatch=True),
    st.from_regex(r"call_[a-z0-9]{4}__thought__" + SIG[:8], fullmatch=True),
    st.sampled_from(["x|fc_1", "bad id!", ""]),
)
THINKING = st.sampled_from(
    [
        None,
        None,
        {"type": "thinking", "thinking": "plan", "signature": SIG},
        {"type": "thinking", "thinking": "plan"},
        {"type": "thinking", "thinking": " ", "signature": ""},
        {"type": "redacted_thinking", "data": SIG},
        {"type": "thinking", "thinking": "plan", "signature": "msg_01"},
    ]
)


@st.composite
def _calls(draw: st.DrawFn) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = [
        {"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}}
        for i in draw(st.lists(IDS, max_size=2))
    ]
    signature = draw(st.sampled_from([None, None, SIG, "", "msg_01"]))
    if calls and signature is not None:
        where: dict[str, Any] = calls[0]["function"] if draw(st.booleans()) else calls[0]
        where["provider_specific_fields"] = {"thought_signature": signature}
    return calls


@st.composite
def _assistant(draw: st.DrawFn, target: TargetModel) -> dict[str, Any]:
    assistant: dict[str, Any] = {
        "role": "assistant",
        "content": draw(st.sampled_from(["ok"] * 4 + [None, ""])),
    }
    stamp = draw(st.sampled_from([_stamp_of(target)] * 2 + [OTHER, {"api": "bogus"}, None]))
    if stamp is not None:
        assistant[STAMP_KEY] = stamp
    block = draw(THINKING)
    if block is not None:
        assistant["thinking_blocks"] = [block]
        if draw(st.booleans()):
            assistant["reasoning_content"] = "plan"
    calls = draw(_calls())
    if calls:
        assistant["tool_calls"] = calls
    if draw(st.integers(0, 5)) == 0:
        signatures = draw(st.sampled_from([[SIG], [""], ["msg_01"], [SIG, SIG]]))
        assistant["provider_specific_fields"] = {"thought_signatures": signatures}
    return assistant


@st.composite
def tool_loops(draw: st.DrawFn, target: TargetModel) -> list[dict[str, Any]]:
    """Tool-loop transcripts as a proxy sees them: mostly well-formed, mostly stamped.

    Random transcripts rarely come out clean for a target; these are built to land on
    every verdict (clean, stamps only, dirty) with the features that decide it.
    """
    messages: list[dict[str, Any]] = []
    if draw(st.booleans()):
        messages.append({"role": "system", "content": draw(st.sampled_from(["Be brief.", " "]))})
    for n in range(draw(st.integers(0, 4))):
        text = draw(st.sampled_from([f"q{n}"] * 4 + ["", "  "]))
        messages.append({"role": "user", "content": text})
        if draw(st.integers(0, 9)) == 0:
            messages.append({"role": "user", "content": [{"type": "text", "text": "more"}]})
        assistant = draw(_assistant(target))
        messages.append(assistant)
        ids = [call["id"] for call in assistant.get("tool_calls", [])]
        for i in ids if draw(st.integers(0, 9)) else ids[1:]:
            messages.append({"role": "tool", "tool_call_id": i, "content": "done"})
    if draw(st.integers(0, 4)) == 0:
        image = {"type": "image_url", "image_url": "https://x/a.png"}
        messages.append({"role": "user", "content": [image]})
    return messages


def _sent(result: Any) -> tuple[list[Any], list[tuple[str, str, int | None]]]:
    changes = [
        (c.step, c.kind, c.index) for c in result.report.changes if c.step != "attribute_provenance"
    ]
    return result.messages, changes


def _assert_agrees(messages: list[dict[str, Any]], target: TargetModel) -> None:
    before = copy.deepcopy(messages)
    policy = policy_for(target)
    verdict = scan_request(messages, target, policy)
    codes = {v.code for v in validate_for_target(messages, target, policy)}
    fast = sanitize_for_target(messages, target, policy=policy)
    if verdict == "clean" or not codes:
        # As before the scan existed: what the validator finds clean is sent untouched
        # (test_properties_pipeline holds the pipeline to changing nothing there).
        assert codes == set()
        assert all(a is b for a, b in zip(fast.messages, messages, strict=True))
        assert fast.report.changes == ()
    else:
        if verdict == "stamps":
            assert codes == {"hygiene_stamp"}
        elif verdict == "dirty":
            assert codes
        assert _sent(fast) == _sent(transform_all(messages, target, policy=policy))
    assert messages == before


@pytest.mark.parametrize("model", TARGETS)
@SETTINGS
@given(data=st.data())
def test_tool_loops_take_the_shortcut_the_pipeline_agrees_with(model: str, data: Any) -> None:
    target = resolve_target(model)
    _assert_agrees(data.draw(tool_loops(target)), target)


@pytest.mark.parametrize("model", TARGETS)
@SETTINGS
@given(messages=transcripts)
def test_random_transcripts_take_the_shortcut_the_pipeline_agrees_with(
    model: str, messages: list[dict[str, Any]]
) -> None:
    _assert_agrees(messages, resolve_target(model))


@pytest.mark.parametrize("model", TARGETS)
def test_a_stamped_same_model_loop_only_loses_its_stamps(model: str) -> None:
    target = resolve_target(model)
    call = {"id": "call_abc123", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    assistant = {"role": "assistant", "content": "ok", "tool_calls": [call]}
    messages = [
        {"role": "user", "content": "hi"},
        {**assistant, STAMP_KEY: _stamp_of(target)},
        {"role": "tool", "tool_call_id": "call_abc123", "content": "done"},
    ]
    if model.startswith("mistral") or "mistral" in model:
        return  # a call_ id is not Mistral's: that transcript is dirty, covered above
    assert scan_request(messages, target, policy_for(target)) == "stamps"
    result = sanitize_for_target(messages, target)
    assert result.messages == [messages[0], assistant, messages[2]]
    assert result.messages[0] is messages[0]
    assert result.report.counts() == {"stamp_removed": 1}


@pytest.mark.parametrize("model", TARGETS)
@SETTINGS
@given(messages=transcripts)
def test_objects_built_without_validation_validate(
    model: str, messages: list[dict[str, Any]]
) -> None:
    context = from_openai(messages)
    assert CONTEXT_ADAPTER.validate_python(CONTEXT_ADAPTER.dump_python(context)) == context
    result = transform_messages(context, resolve_target(model))
    rebuilt = CONTEXT_ADAPTER.validate_python(CONTEXT_ADAPTER.dump_python(result.context))
    assert rebuilt == result.context
    for change in result.report.changes:
        assert type(change).model_validate(change.model_dump()) == change


RULES = [
    IdRule(allowed="a-zA-Z0-9_-", max_length=64),
    IdRule(allowed="a-zA-Z0-9", exact_length=9),
    IdRule(max_length=40),
    IdRule(max_length=64, keep_responses_pairs=True),
]


@pytest.mark.parametrize("rule", RULES, ids=lambda r: repr(r))
@settings(max_examples=300, deadline=None)
@given(value=st.text(alphabet="aZ09_-|fc: ", max_size=70))
def test_id_fits_exactly_when_the_id_rule_reports_nothing(rule: IdRule, value: str) -> None:
    target = resolve_target("gpt-4o")
    policy = policy_for(target).model_copy(update={"tool_ids": rule})
    message = {"role": "tool", "tool_call_id": value, "content": "x"}
    request = Request([message], target, policy)
    assert tool_id_fits(rule, value) == (check_tool_ids(request) == [])


def _pass_inputs(
    messages: list[dict[str, Any]], target: TargetModel
) -> Iterator[tuple[str, Messages, PassContext]]:
    """Each pass's input as the pipeline feeds it, with the pass context."""
    ctx = PassContext(target=target, policy=policy_for(target))
    current, _ = attribute_provenance(from_openai(messages).messages, ctx, None)
    for name, step in PIPELINE:
        yield name, current, ctx
        current, _ = step(current, ctx)


Unchanged = Callable[[Messages, PassContext], bool]
SHORTCUTS: dict[str, tuple[Unchanged, Pass]] = {
    "repair_tool_result_pairing": (lambda m, ctx: _already_paired(m), lambda m, ctx: _repair(m)),
    "normalize_tool_call_ids": (lambda m, ctx: _nothing_to_rename(m, ctx.policy.tool_ids), _rename),
    "validate_turn_order": (_in_order, _reorder),
}


def _assert_shortcuts_hold(messages: list[dict[str, Any]], target: TargetModel) -> None:
    for name, before, ctx in _pass_inputs(messages, target):
        if name in SHORTCUTS:
            unchanged, body = SHORTCUTS[name]
            if unchanged(before, ctx):
                out, changes = body(before, ctx)
                assert changes == [], (name, changes)
                assert out == before


@pytest.mark.parametrize("model", TARGETS)
@SETTINGS
@given(data=st.data())
def test_a_pass_skipped_as_unchanged_would_have_changed_nothing(model: str, data: Any) -> None:
    target = resolve_target(model)
    _assert_shortcuts_hold(data.draw(tool_loops(target)), target)
    _assert_shortcuts_hold(data.draw(transcripts), target)
