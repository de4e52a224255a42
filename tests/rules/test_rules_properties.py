"""One rule engine: the validator, the pipeline and the hot path agree by construction.

For generated transcripts (broad ones, and agent transcripts at the edge of each rule)
and every target family: a request the rules find nothing in goes out as the caller's
own objects, and exactly then; each rule finds nothing in its own fix; the cheap facts a
rule filters on never hide a message its fix would change; the output is a fixed point,
valid for its target, and the input is never mutated; every result in it carries its
call's id as the output gives it.
"""

from __future__ import annotations

import copy
import os
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from litellm_hygiene import (
    InvalidMessageError,
    from_openai,
    resolve_target,
    sanitize_messages,
    to_openai,
    transform_messages,
    validate_for_target,
)
from litellm_hygiene._executor import read_slots
from litellm_hygiene._openai._decode import decode_message
from litellm_hygiene._openai._facts import read_facts
from litellm_hygiene._openai._wire import OPENAI
from litellm_hygiene._pipeline import context_for, run_rules
from litellm_hygiene._rules import RULES, Conversation
from litellm_hygiene._rules._rule import MessageRule
from litellm_hygiene._rules.tool_pairing import _in_order, _plan, _readdressed
from tests.support.stamps import without_stamps
from tests.support.strategies import agent_transcripts, gemini_transcripts, transcripts

TARGETS = [
    "anthropic/claude-sonnet-4-5",
    "bedrock/converse/us.anthropic.claude-3-7-sonnet-20250219-v1:0",
    "gemini/gemini-2.5-pro",
    "vertex_ai/gemini-3-pro-preview",
    "openrouter/google/gemini-2.5-pro",
    "gpt-4o",
    "openai/responses/gpt-5",
    "mistral/mistral-large-latest",
    "openrouter/mistralai/mistral-large",
    "deepseek/deepseek-chat",
    "deepseek/deepseek-reasoner",
    "moonshot/kimi-k2-thinking",
]
# HYGIENE_EXAMPLES=400 for a longer run.
SETTINGS = settings(max_examples=int(os.environ.get("HYGIENE_EXAMPLES", "40")), deadline=None)
inputs = st.one_of(transcripts, agent_transcripts, gemini_transcripts)


def _readable(messages: list[dict[str, Any]], model: str) -> bool:
    target = resolve_target(model)
    ctx = context_for(target)
    try:
        read_slots(messages, ctx, OPENAI)
    except InvalidMessageError:
        return False
    return True


@pytest.mark.parametrize("model", TARGETS)
@SETTINGS
@given(messages=inputs)
def test_nothing_found_exactly_when_nothing_changes(
    model: str, messages: list[dict[str, Any]]
) -> None:
    target = resolve_target(model)
    violations = validate_for_target(messages, target, context_for(target).policy)
    if _readable(messages, model):
        result = sanitize_messages(messages, model)
        assert (violations == []) == (not result.report.changed), result.report.counts()
        if not result.report.changed:
            assert all(a is b for a, b in zip(result.messages, messages, strict=True))
    else:
        assert any(v.code == "malformed_message" for v in violations)
        with pytest.raises(InvalidMessageError):
            sanitize_messages(messages, model)


@pytest.mark.parametrize("model", TARGETS)
@SETTINGS
@given(messages=inputs)
def test_the_hot_path_is_the_full_pipeline(model: str, messages: list[dict[str, Any]]) -> None:
    """Wire edits (``sanitize_messages``) give what the neutral model's repairs give.

    ``transform_messages`` starts from decoded messages, so every rule repairs them on
    the neutral model; ``sanitize_messages`` starts from the wire, where rules edit the
    turns they can without decoding them. Same messages (the stamp aside, which only the
    wire carries), same report, change by change.
    """
    if _readable(messages, model):
        fast = sanitize_messages(messages, model)
        context = from_openai(messages)
        full = transform_messages(context, resolve_target(model))
        assert without_stamps(fast.messages) == without_stamps(to_openai(full.context))
        # A leading system message lifted into the system prompt is not one of the
        # context's messages: the neutral positions start after it.
        lifted = 0 if context.system_prompt is None else 1
        neutral = [
            (c.kind, None if c.index is None else c.index + lifted, c.detail)
            for c in full.report.changes
            if c.kind != "hygiene_stamp"
        ]
        hot = [(c.kind, c.index, c.detail) for c in fast.report.changes]
        assert [c for c in hot if c[0] != "hygiene_stamp"] == neutral


@pytest.mark.parametrize("model", TARGETS)
@SETTINGS
@given(messages=inputs)
def test_output_is_a_valid_fixed_point_and_input_untouched(
    model: str, messages: list[dict[str, Any]]
) -> None:
    if _readable(messages, model):
        before = copy.deepcopy(messages)
        once = sanitize_messages(messages, model)
        assert messages == before
        target = resolve_target(model)
        assert validate_for_target(once.messages, target, context_for(target).policy) == []
        twice = sanitize_messages(once.messages, model)
        assert twice.messages == once.messages
        assert not twice.report.changed, twice.report.counts()


def _call_ids(message: dict[str, Any]) -> list[str]:
    """A turn's call ids as the facts read them (no id, or not a string: ``""``)."""
    ids = [call.get("id") for call in message.get("tool_calls") or ()]
    return [i if isinstance(i, str) else "" for i in ids]


@pytest.mark.parametrize("model", TARGETS)
@SETTINGS
@given(messages=st.one_of(gemini_transcripts, inputs))
def test_pairing_in_one_pass_is_the_full_plan(model: str, messages: list[dict[str, Any]]) -> None:
    """Where every call is answered in order, tool_pairing's one pass gives its full plan."""
    if not _readable(messages, model):
        return
    ctx = context_for(resolve_target(model))
    conv = Conversation(read_slots(messages, ctx, OPENAI), ctx, OPENAI)
    quick = _in_order(conv)
    if quick is not None:
        # Every slot stays where it is; the map's results are readdressed to its calls.
        readdressed, found = quick
        order = [(p, readdressed[p]) if p in readdressed else p for p in range(len(conv.slots))]
        assert found == [_readdressed(p, call) for p, call in readdressed.items()]
        assert (order, found) == _plan(conv)
    # The one pass every request makes says "nothing to repair" exactly when the full
    # plan finds nothing.
    assert (quick is not None and not quick[0]) is (not _plan(conv)[1])


@pytest.mark.parametrize("model", TARGETS)
@SETTINGS
@given(messages=st.one_of(gemini_transcripts, inputs))
def test_each_result_carries_its_calls_id(model: str, messages: list[dict[str, Any]]) -> None:
    """The output is a transcript any client can send (issue 27, items 2 and 3).

    Each ``tool`` result carries exactly the id of a call of the assistant turn right
    before its run of results, byte for byte, whatever LiteLLM would strip on the way
    out; a legacy ``function`` result that names a call carries the id LiteLLM pairs it
    by (``WirePlan.answer_id``). And the output is a fixed point. Unstamped Gemini
    answers (signed ids, signed texts, blank parts) are two thirds of the examples.
    """
    if not _readable(messages, model):
        return
    out = sanitize_messages(messages, model).messages
    answer_id = context_for(resolve_target(model)).plan.answer_id
    calls: list[str] = []
    for message in out:
        role = message["role"]
        if role == "assistant":
            calls = _call_ids(message)
        elif role == "tool":
            assert message["tool_call_id"] in calls, (message["tool_call_id"], calls)
        elif role == "function":
            if message.get("tool_call_id"):
                answers = [answer_id(call, tool=False) for call in calls]
                assert message["tool_call_id"] in answers, (message["tool_call_id"], calls)
        else:
            calls = []
    again = sanitize_messages(out, model)
    assert not again.report.changed, again.report.counts()


@pytest.mark.parametrize("model", TARGETS)
@SETTINGS
@given(messages=inputs)
def test_each_rule_finds_nothing_in_its_own_fix(model: str, messages: list[dict[str, Any]]) -> None:
    if _readable(messages, model):
        ctx = context_for(resolve_target(model))
        for rule in RULES:
            if not rule.applies(ctx):
                continue
            conv = Conversation(read_slots(messages, ctx, OPENAI), ctx, OPENAI)
            found = rule.find(conv)
            if found:
                assert rule.find(rule.fix(conv, found)) == [], rule.code


@pytest.mark.parametrize("model", TARGETS)
@SETTINGS
@given(messages=inputs)
def test_facts_never_hide_what_a_fix_would_change(
    model: str, messages: list[dict[str, Any]]
) -> None:
    if _readable(messages, model):
        ctx = context_for(resolve_target(model))
        for rule in RULES:
            if not isinstance(rule, MessageRule) or not rule.applies(ctx):
                continue
            conv = Conversation(read_slots(messages, ctx, OPENAI), ctx, OPENAI)
            for index in range(len(conv)):
                _, problems = rule.repair(conv, index, conv.message(index))
                assert not problems or rule.candidate(conv, conv.slots[index]), (rule.code, index)


@SETTINGS
@given(messages=inputs)
def test_facts_reader_refuses_exactly_what_the_decoder_refuses(
    messages: list[dict[str, Any]],
) -> None:
    plan = context_for(resolve_target("gpt-4o")).plan
    for index, message in enumerate(messages):
        try:
            decoded = decode_message(message, index)
        except InvalidMessageError as err:
            with pytest.raises(InvalidMessageError) as refused:
                read_facts(message, index, plan)
            assert (refused.value.index, refused.value.field) == (err.index, err.field)
        else:
            facts = read_facts(message, index, plan)
            calls = getattr(decoded, "tool_calls", lambda: None)() or []
            assert len(facts.calls) == len(calls)


def _rule_by_rule(conv: Conversation) -> tuple[list[Any], list[tuple[str, int | None, str]]]:
    """The pipeline's definition: each rule's find, then its fix, in order."""
    changes: list[tuple[str, int | None, str]] = []
    for rule in RULES:
        if not rule.applies(conv.ctx):
            continue
        found = rule.find(conv)
        if found:
            changes += [(rule.code, f.index, p.reason) for f in found for p in f.problems]
            conv = rule.fix(conv, found)
    return [slot.raw for slot in conv.slots], changes


@pytest.mark.parametrize("model", TARGETS)
@SETTINGS
@given(messages=inputs)
def test_one_walk_of_message_rules_is_rule_by_rule(
    model: str, messages: list[dict[str, Any]]
) -> None:
    # run_rules runs consecutive message rules as one walk over the messages; that
    # must give exactly what running every rule's find and fix in turn gives.
    if _readable(messages, model):
        ctx = context_for(resolve_target(model))
        walked, changes = run_rules(Conversation(read_slots(messages, ctx, OPENAI), ctx, OPENAI))
        expected = _rule_by_rule(Conversation(read_slots(messages, ctx, OPENAI), ctx, OPENAI))
        assert [slot.raw for slot in walked.slots] == expected[0]
        assert [(c.kind, c.index, c.detail) for c in changes] == expected[1]


EDITING = [
    rule
    for rule in RULES
    if isinstance(rule, MessageRule) and type(rule).edit is not MessageRule.edit
]
"""The rules whose fix has a fast form on the wire (``MessageRule.edit``)."""


_PLAIN_FOREIGN_TURNS = [
    {"role": "user", "content": "go"},
    {
        "role": "assistant",
        "content": "done",
        "reasoning_content": "thinking text",
        "provider_specific_fields": {"grounding": "kept"},
        "litellm_hygiene": {"provider": "gemini", "api": "gemini", "model": "gemini-2.5-pro"},
    },
    {"role": "user", "content": "and?"},
    {
        "role": "assistant",
        "reasoning_content": "more",
        "tool_calls": [
            {
                "id": "call_1__thought__c2ln",
                "type": "function",
                "function": {"name": "f", "arguments": "{}"},
            },
            {"id": "call_2", "type": "function", "function": {"name": "f", "arguments": "{}"}},
        ],
    },
    {"role": "tool", "tool_call_id": "call_1__thought__c2ln", "content": "r1"},
    {"role": "tool", "tool_call_id": "call_2", "content": "r2"},
]
"""Plain turns another model wrote: provider fields left on the message once the
thinking goes, a signed call beside an unsigned one."""


@pytest.mark.parametrize("rule", EDITING, ids=lambda rule: rule.code)
@pytest.mark.parametrize("model", TARGETS)
@SETTINGS
@given(messages=inputs)
@example(messages=_PLAIN_FOREIGN_TURNS)
def test_each_wire_edit_is_its_rules_fix(
    rule: MessageRule, model: str, messages: list[dict[str, Any]]
) -> None:
    """Where a rule edits a message on the wire, the edit writes what its fix on the
    decoded message writes, with the same problems: the edit is only a faster form of
    the fix, never a second statement of the rule. Facts it gives are what the reader
    reads of what it wrote."""
    if not _readable(messages, model):
        return
    ctx = context_for(resolve_target(model))
    if not rule.applies(ctx):
        return
    conv = Conversation(read_slots(messages, ctx, OPENAI), ctx, OPENAI)
    for index, slot in enumerate(conv.slots):
        if not slot.facts.flags & rule.flags or not rule.candidate(conv, slot):
            continue
        edited = rule.edit(conv, index, slot)
        if edited is None:
            continue  # no fast form for this message: the fix decodes it
        raw, problems, facts = edited
        if facts is not None:
            assert facts == OPENAI.facts(raw, index, ctx.plan)
        fixed, expected = rule.repair(conv, index, conv.message(index))
        assert problems == expected
        if problems:
            assert fixed is not None
            assert without_stamps([raw]) == without_stamps([OPENAI.encode(fixed)])
