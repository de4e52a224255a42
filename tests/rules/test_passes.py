"""One test per rule of the transformation passes, named by behaviour.

Includes the scenarios of the seeds' systems (the Rust port's transform tests:
passthrough, error/abort filtering, thinking same/different model, empty thinking,
text signatures, id normalization, orphaned calls, partial results, images).
"""

from __future__ import annotations

from typing import Any

import pytest

from litellm_hygiene import (
    AssistantMessage,
    Context,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from litellm_hygiene._families import POLICIES
from litellm_hygiene._pipeline import transform_messages
from litellm_hygiene._resolve import resolve_target
from litellm_hygiene._sanitize import sanitize_messages
from litellm_hygiene._target import Capabilities, TargetModel
from litellm_hygiene._validate import validate_messages

CLAUDE = TargetModel(
    provider="anthropic", api="anthropic-messages", model_id="claude-sonnet-4-5", family="anthropic"
)
GPT = TargetModel(provider="openai", api="openai-chat", model_id="gpt-4o", family="openai")
MISTRAL = TargetModel(provider="mistral", api="mistral", model_id="mistral-large", family="mistral")
GEMINI = TargetModel(provider="gemini", api="gemini", model_id="gemini-2.5-pro", family="gemini")

FROM_CLAUDE = {"provider": "anthropic", "api": "anthropic-messages", "model": "claude-sonnet-4-5"}
SIG = "EqQBCkgIAxABGAIiQL0t1cJmUMqzNvJ0MPLKbFQyB7gqEpOPh0hY0y4xeA=="


def _run(messages: list[Any], target: TargetModel) -> tuple[Context, dict[str, int]]:
    result = transform_messages(Context(messages=tuple(messages)), target)
    return result.context, result.report.counts()


def _assistant(*blocks: Any, **fields: Any) -> AssistantMessage:
    return AssistantMessage(content=blocks, content_form="list", **{**FROM_CLAUDE, **fields})


def _user(text: str = "hi") -> UserMessage:
    return UserMessage(content=(TextContent(text=text),))


def _result(call_id: str, text: str = "ok", **fields: Any) -> ToolResultMessage:
    return ToolResultMessage(tool_call_id=call_id, content=(TextContent(text=text),), **fields)


# --- the Rust port's scenarios ------------------------------------------------------


def test_user_messages_pass_through_untouched() -> None:
    context = Context(messages=(_user("a"),))
    result = transform_messages(context, CLAUDE)
    assert result.context is context
    assert not result.report.changed


@pytest.mark.parametrize("stop", ["error", "aborted"])
def test_failed_turns_are_dropped_with_their_results(stop: str) -> None:
    failed = _assistant(ToolCall(id="toolu_1", name="f"), stop_reason=stop)
    context, counts = _run([_user(), failed, _result("toolu_1"), _user("again")], CLAUDE)
    assert [m.kind for m in context.messages] == ["user"]
    assert counts["failed_turn"] == 2  # the turn and the result answering it
    assert counts["consecutive_turns"] == 1  # the two user turns left are merged


def test_same_model_signed_thinking_is_kept_byte_for_byte_in_place() -> None:
    thinking = ThinkingContent(thinking="plan", signature=SIG)
    redacted = ThinkingContent(thinking="", signature="EmwKAhgB", redacted=True)
    turn = _assistant(thinking, redacted, ToolCall(id="toolu_1", name="f"))
    context, _ = _run([_user(), turn, _result("toolu_1")], CLAUDE)
    kept = context.messages[1]
    assert isinstance(kept, AssistantMessage)
    assert kept.content[:2] == (thinking, redacted)


def test_same_model_unsigned_thinking_is_kept() -> None:
    turn = _assistant(ThinkingContent(thinking="plan"), TextContent(text="a"))
    context, _ = _run([_user(), turn], CLAUDE)
    assert context.messages[1] == turn


@pytest.mark.parametrize("signature", [SIG, None])
def test_cross_model_thinking_becomes_plain_text_without_tags(signature: str | None) -> None:
    turn = _assistant(ThinkingContent(thinking="plan", signature=signature), TextContent(text="a"))
    context, counts = _run([_user(), turn], GPT)
    new = context.messages[1]
    assert isinstance(new, AssistantMessage)
    # Its own part, a blank line before the text (LiteLLM joins parts for Mistral).
    assert new.content == (TextContent(text="plan\n\n"), TextContent(text="a"))
    assert "<thinking>" not in new.text()
    assert counts["foreign_reasoning"] == 1


def test_cross_model_empty_and_redacted_thinking_are_dropped() -> None:
    turn = _assistant(
        ThinkingContent(thinking="  "),
        ThinkingContent(thinking="", signature="x", redacted=True),
        TextContent(text="a"),
    )
    context, counts = _run([_user(), turn], GPT)
    new = context.messages[1]
    assert isinstance(new, AssistantMessage)
    assert new.content == (TextContent(text="a"),)
    assert counts["foreign_reasoning"] == 2  # the empty and the redacted block


def test_cross_model_text_and_tool_call_signatures_are_dropped() -> None:
    turn = AssistantMessage(
        content=(
            TextContent(text="a", text_signature=SIG),
            ToolCall(id="call_1", name="f", thought_signature=SIG, signature_sites=("id",)),
        ),
        provider="gemini",
        api="gemini",
        model="gemini-2.5-pro",
    )
    context, _ = _run([_user(), turn, _result("call_1")], CLAUDE)
    new = context.messages[1]
    assert isinstance(new, AssistantMessage)
    text, call = new.content
    assert isinstance(text, TextContent) and text.text_signature is None
    assert isinstance(call, ToolCall) and call.thought_signature is None


def test_tool_call_ids_are_normalized_and_results_remapped() -> None:
    turn = _assistant(ToolCall(id="toolu_01VpEm654HvfMoRcrE3Hgdc6", name="f"))
    context, counts = _run([_user(), turn, _result("toolu_01VpEm654HvfMoRcrE3Hgdc6")], MISTRAL)
    call = context.messages[1].content[0]  # type: ignore[union-attr]
    result = context.messages[2]
    assert isinstance(call, ToolCall) and isinstance(result, ToolResultMessage)
    assert len(call.id) == 9 and call.id.isalnum()
    assert result.tool_call_id == call.id
    assert counts["tool_call_id"] == 1


def test_orphaned_tool_call_gets_a_synthetic_error_result() -> None:
    turn = _assistant(ToolCall(id="toolu_1", name="f"))
    context, _ = _run([_user(), turn], CLAUDE)
    result = context.messages[-1]
    assert isinstance(result, ToolResultMessage)
    assert (result.tool_call_id, result.text(), result.is_error, result.synthesized) == (
        "toolu_1",
        "No result provided",
        True,
        True,
    )


def test_multiple_tool_calls_with_partial_results() -> None:
    turn = _assistant(ToolCall(id="toolu_1", name="f"), ToolCall(id="toolu_2", name="g"))
    context, _ = _run([_user(), turn, _result("toolu_2")], CLAUDE)
    results = context.messages[2:]
    assert [r.tool_call_id for r in results] == ["toolu_1", "toolu_2"]  # type: ignore[union-attr]
    assert [r.synthesized for r in results] == [True, False]  # type: ignore[union-attr]


def test_images_pass_through_for_a_vision_target() -> None:
    image = ImageContent(url="https://example.com/a.png")
    message = UserMessage(content=(TextContent(text="look"), image), content_form="list")
    vision = CLAUDE.model_copy(update={"capabilities": Capabilities(images=True)})
    context, _ = _run([message], vision)
    assert context.messages[0] == message


# --- pairing ------------------------------------------------------------------------


def test_displaced_result_is_moved_right_after_its_call() -> None:
    turn = _assistant(ToolCall(id="toolu_1", name="f"))
    context, counts = _run([_user(), turn, _user("wait"), _result("toolu_1")], GPT)
    assert [m.kind for m in context.messages] == ["user", "assistant", "tool_result", "user"]
    assert counts["tool_pairing"] == 1


def test_results_follow_call_order() -> None:
    turn = _assistant(ToolCall(id="toolu_1", name="f"), ToolCall(id="toolu_2", name="g"))
    context, _ = _run([_user(), turn, _result("toolu_2"), _result("toolu_1")], GPT)
    assert [m.tool_call_id for m in context.messages[2:]] == ["toolu_1", "toolu_2"]  # type: ignore[union-attr]


def test_real_result_beats_synthesized_duplicate() -> None:
    turn = _assistant(ToolCall(id="toolu_1", name="f"))
    synthetic = _result("toolu_1", "No result provided", synthesized=True, is_error=True)
    context, counts = _run([_user(), turn, synthetic, _result("toolu_1", "real")], GPT)
    (result,) = context.messages[2:]
    assert isinstance(result, ToolResultMessage) and result.text() == "real"
    assert counts["tool_pairing"] == 2  # the synthesized duplicate dropped, the real one moved


def test_result_without_call_is_dropped() -> None:
    context, counts = _run([_user(), _result("nobody")], GPT)
    assert [m.kind for m in context.messages] == ["user"]
    assert counts["tool_pairing"] == 1


def test_interrupting_user_turn_gets_synthesized_result_before_it() -> None:
    turn = _assistant(ToolCall(id="toolu_1", name="f"))
    context, _ = _run([_user(), turn, _user("stop")], GPT)
    assert [m.kind for m in context.messages] == ["user", "assistant", "tool_result", "user"]


def test_repeated_ids_across_turns_pair_per_occurrence() -> None:
    first = _assistant(ToolCall(id="call_0", name="f"))
    second = _assistant(ToolCall(id="call_0", name="g"))
    messages = [_user(), first, _result("call_0", "one"), _user(), second, _result("call_0", "two")]
    context, _ = _run(messages, MISTRAL)
    calls = [
        m.content[0]
        for m in context.messages
        if isinstance(m, AssistantMessage) and isinstance(m.content[0], ToolCall)
    ]
    results = [m for m in context.messages if isinstance(m, ToolResultMessage)]
    assert calls[0].id != calls[1].id
    assert [r.tool_call_id for r in results] == [calls[0].id, calls[1].id]
    assert [r.text() for r in results] == ["one", "two"]


# --- ids ----------------------------------------------------------------------------


def test_same_model_ids_are_untouched() -> None:
    turn = AssistantMessage(
        content=(ToolCall(id="KikbB849t", name="f"),),
        provider="mistral",
        api="mistral",
        model="mistral-large",
    )
    context = Context(messages=(_user(), turn, _result("KikbB849t")))
    assert transform_messages(context, MISTRAL).context is context


def test_empty_ids_get_valid_ones_and_results_follow_positionally() -> None:
    turn = _assistant(ToolCall(id="", name="f"), ToolCall(id="", name="g"))
    context, _ = _run([_user(), turn, _result("", "r1"), _result("", "r2")], CLAUDE)
    calls = context.messages[1].content  # type: ignore[union-attr]
    results = context.messages[2:]
    assert all(isinstance(c, ToolCall) and c.id for c in calls)
    assert [r.tool_call_id for r in results] == [c.id for c in calls]  # type: ignore[union-attr]


def test_colliding_sanitized_ids_stay_distinct() -> None:
    turn = _assistant(ToolCall(id="a|b", name="f"), ToolCall(id="a:b", name="g"))
    context, _ = _run([_user(), turn, _result("a|b"), _result("a:b")], CLAUDE)
    first, second = context.messages[1].content  # type: ignore[union-attr]
    assert isinstance(first, ToolCall) and isinstance(second, ToolCall)
    assert first.id != second.id
    assert [r.tool_call_id for r in context.messages[2:]] == [first.id, second.id]  # type: ignore[union-attr]


def test_renaming_is_deterministic() -> None:
    messages = [_user(), _assistant(ToolCall(id="toolu_x", name="f")), _result("toolu_x")]
    assert _run(messages, MISTRAL) == _run(messages, MISTRAL)


def test_responses_pairs_are_kept_for_the_responses_target() -> None:
    target = resolve_target("openai/responses/gpt-5")
    pair = "call_pAYb|fc_0f0d" + "a" * 40
    turn = AssistantMessage(content=(ToolCall(id=pair, name="f"),))
    context, _ = _run([_user(), turn, _result(pair)], target)
    assert context.messages[1].content[0].id == pair  # type: ignore[union-attr]


def test_responses_pairs_are_renamed_for_anthropic() -> None:
    pair = "call_pAYb|fc_0f0d"
    turn = AssistantMessage(
        content=(ToolCall(id=pair, name="f"),),
        provider="openai",
        api="openai-responses",
        model="gpt-5",
    )
    context, _ = _run([_user(), turn, _result(pair)], CLAUDE)
    new_id = context.messages[1].content[0].id  # type: ignore[union-attr]
    assert "|" not in new_id and context.messages[2].tool_call_id == new_id  # type: ignore[union-attr]


# --- turns --------------------------------------------------------------------------


def test_consecutive_user_turns_merge_keeping_string_content() -> None:
    context, _ = _run([_user("a"), _user("b")], CLAUDE)
    assert context.messages == (UserMessage(content=(TextContent(text="a\n\nb"),)),)


def test_consecutive_user_turns_merge_list_content_alike() -> None:
    image = ImageContent(url="https://e.x/a.png")
    listed = UserMessage(content=(image,), content_form="list")
    vision = CLAUDE.model_copy(update={"capabilities": Capabilities(images=True)})
    context, _ = _run([_user("a"), listed], vision)
    (merged,) = context.messages
    assert isinstance(merged, UserMessage)
    assert merged.content == (TextContent(text="a"), image)


def test_openai_keeps_consecutive_user_turns() -> None:
    context = Context(messages=(_user("a"), _user("b")))
    assert transform_messages(context, GPT).context is context


def test_gemini_merges_consecutive_assistant_turns() -> None:
    first = AssistantMessage(
        content=(TextContent(text="a"),), provider="gemini", api="gemini", model="gemini-2.5-pro"
    )
    context, counts = _run([_user(), first, first], GEMINI)
    assert len(context.messages) == 2
    assert counts["consecutive_turns"] == 1


def test_history_starting_with_assistant_gets_a_user_turn() -> None:
    turn = AssistantMessage(
        content=(TextContent(text="hello"),),
        provider="gemini",
        api="gemini",
        model="gemini-2.5-pro",
    )
    context, counts = _run([turn], GEMINI)
    assert isinstance(context.messages[0], UserMessage)
    assert counts["assistant_first"] == 1


# --- reconcile: fields and base64 ------------------------------------------------------


def test_openai_target_loses_response_only_fields_even_same_model() -> None:
    messages = [
        {"role": "user", "content": "q"},
        {
            "role": "assistant",
            "content": "a",
            "provider_specific_fields": {"refusal": None},
            "thinking_blocks": None,
            "reasoning_content": None,
        },
    ]
    result = sanitize_messages(messages, "gpt-4o", source_model="gpt-4o")
    assert result.messages[1] == {"role": "assistant", "content": "a"}


def test_deepseek_in_thinking_mode_keeps_its_own_reasoning_content() -> None:
    messages = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "a", "reasoning_content": "because"},
    ]
    model = "deepseek/deepseek-reasoner"
    assert sanitize_messages(messages, model, source_model=model).messages == messages
    # Not in thinking mode, an OpenAI-compatible target does not get it.
    chat = "deepseek/deepseek-chat"
    out = sanitize_messages(messages, chat, source_model=chat).messages
    assert out[1] == {"role": "assistant", "content": "a"}


def test_gemini_target_drops_non_base64_thought_signatures_even_same_model() -> None:
    turn = AssistantMessage(
        content=(
            ToolCall(
                id="call_1",
                name="f",
                thought_signature="msg_01abc",
                signature_sites=("provider_specific_fields",),
            ),
        ),
        provider="gemini",
        api="gemini",
        model="gemini-2.5-pro",
    )
    context, counts = _run([_user(), turn, _result("call_1")], GEMINI)
    assert context.messages[1].content[0].thought_signature is None  # type: ignore[union-attr]
    assert counts["non_base64_signature"] == 1


def test_openrouter_gemini_requires_base64_signatures() -> None:
    """What "a Gemini model" means is a wire fact, declared once (LiteLLM's own test)."""
    from litellm_hygiene._pipeline import context_for
    from litellm_hygiene._rules.non_base64_signature import requires_base64

    assert requires_base64(context_for(resolve_target("openrouter/google/gemini-2.5-pro")))
    assert requires_base64(context_for(resolve_target("vertex_ai/gemini-2.5-pro")))
    assert not requires_base64(context_for(resolve_target("openrouter/mistralai/mistral-large")))
    assert not requires_base64(context_for(resolve_target("vertex_ai/claude-sonnet-4-5")))
    assert not POLICIES["openai-compatible"].require_base64_thought_signatures


@pytest.mark.parametrize(
    ("model", "api", "family"),
    [
        ("vertex_ai/gemini-2.5-pro", "gemini", "gemini"),
        ("vertex_ai/claude-sonnet-4-5", "anthropic-messages", "anthropic"),
        ("vertex_ai/mistral-large@2407", "openai-compatible", "mistral"),
        ("vertex_ai/codestral-2501", "openai-compatible", "mistral"),
        ("vertex_ai/meta/llama-3.1-405b-instruct-maas", "openai-compatible", "openai-compatible"),
        (
            "vertex_ai/qwen/qwen3-coder-480b-a35b-instruct-maas",
            "openai-compatible",
            "openai-compatible",
        ),
        ("vertex_ai/google/gemma-3-27b-it-maas", "openai-compatible", "openai-compatible"),
    ],
)
def test_vertex_partner_models_speak_what_litellm_sends_them(
    model: str, api: str, family: str
) -> None:
    """LiteLLM serves Vertex AI's partner models (but Claude) through OpenAI-compatible
    endpoints, with each message as it is (``tests/shapes/test_wire_keys.py``): Mistral there
    is Mistral, not Gemini."""
    target = resolve_target(model)
    assert (target.api, target.family) == (api, family)


def test_mistral_on_vertex_gets_mistral_ids_and_turn_order() -> None:
    call = {"id": "toolu_01A", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    messages = [
        {"role": "user", "content": "Look it up."},
        {"role": "assistant", "content": "On it.", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "toolu_01A", "content": "42"},
        {"role": "user", "content": "And?"},
    ]
    out = sanitize_messages(messages, "vertex_ai/mistral-large@2407")
    assert out.report.counts() == {"tool_call_id": 1, "turn_order": 1}
    (new_id,) = [c["id"] for c in out.messages[1]["tool_calls"]]
    assert len(new_id) == 9 and new_id.isalnum() and out.messages[2]["tool_call_id"] == new_id
    assert [m["role"] for m in out.messages] == ["user", "assistant", "tool", "assistant", "user"]


# --- public API ----------------------------------------------------------------------


def test_sanitize_never_mutates_and_is_idempotent() -> None:
    import copy

    messages = [
        {"role": "user", "content": "q"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "toolu_01A",
                    "type": "function",
                    "function": {"name": "f", "arguments": "{}"},
                }
            ],
        },
        {"role": "user", "content": "next"},
    ]
    before = copy.deepcopy(messages)
    once = sanitize_messages(messages, "mistral/mistral-large-latest")
    assert messages == before
    twice = sanitize_messages(once.messages, "mistral/mistral-large-latest")
    assert twice.messages == once.messages
    assert not twice.report.changed


def test_sanitize_returns_input_values_when_nothing_changes() -> None:
    messages = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]
    result = sanitize_messages(messages, "gpt-4o")
    assert result.messages == messages
    assert all(a is b for a, b in zip(result.messages, messages, strict=True))


def test_assistant_with_only_thinking_and_an_empty_content_list_gets_null_content() -> None:
    messages = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": [], "reasoning_content": "0"},
    ]
    out = sanitize_messages(messages, "anthropic/claude-sonnet-4-5").messages
    assert out[1]["content"] is None
    assert validate_messages(out, "anthropic/claude-sonnet-4-5") == []


def test_merged_thinking_only_assistant_turns_get_null_content() -> None:
    messages = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "", "reasoning_content": "a"},
        {
            "role": "assistant",
            "content": None,
            "thinking_blocks": [{"type": "thinking", "thinking": "b"}],
        },
    ]
    model = "bedrock/converse/us.anthropic.claude-3-7-sonnet-20250219-v1:0"
    out = sanitize_messages(messages, model).messages
    assert [m["role"] for m in out] == ["user", "assistant"]
    assert out[1]["content"] is None
    assert validate_messages(out, model) == []
