"""The neutral model: placement rules, helpers, and self-describing JSON."""

from __future__ import annotations

import pydantic
import pytest

from litellm_hygiene import (
    AssistantMessage,
    Context,
    ImageContent,
    OpaqueContent,
    SystemMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolDefinition,
    ToolResultMessage,
    Usage,
    UsageCost,
    UserMessage,
    context_from_json,
    context_to_json,
)


def test_thinking_in_a_user_message_is_rejected_naming_message_and_block() -> None:
    with pytest.raises(pydantic.ValidationError) as caught:
        UserMessage(content=(TextContent(text="a"), ThinkingContent(thinking="x")))
    text = str(caught.value)
    assert "UserMessage cannot hold ThinkingContent (content[1])" in text


def test_misplaced_block_inside_a_context_names_the_message_position() -> None:
    data = {
        "messages": [
            {"kind": "user", "content": [{"kind": "text", "text": "a"}]},
            {
                "kind": "tool_result",
                "tool_call_id": "x",
                "content": [{"kind": "tool_call", "id": "a", "name": "f"}],
            },
        ]
    }
    with pytest.raises(pydantic.ValidationError) as caught:
        Context.model_validate(data)
    error = caught.value.errors()[0]
    assert error["loc"][:2] == ("messages", 1)
    assert "ToolResultMessage cannot hold ToolCall (content[0])" in error["msg"]


@pytest.mark.parametrize(
    ("message_type", "block"),
    [
        (UserMessage, ToolCall(id="a", name="f")),
        (ToolResultMessage, ThinkingContent(thinking="x")),
        (SystemMessage, ImageContent(url="https://x")),
        (AssistantMessage, ImageContent(url="https://x")),
    ],
)
def test_placement_table_is_enforced(message_type: type[pydantic.BaseModel], block: object) -> None:
    extra = {"tool_call_id": "a"} if message_type is ToolResultMessage else {}
    with pytest.raises(pydantic.ValidationError, match="cannot hold"):
        message_type(content=(block,), **extra)


def test_models_are_immutable() -> None:
    message = UserMessage(content=(TextContent(text="a"),))
    with pytest.raises(pydantic.ValidationError):
        message.content = ()  # type: ignore[misc]


def test_text_and_tool_calls_helpers_preserve_order_and_copy() -> None:
    first, second = ToolCall(id="1", name="a"), ToolCall(id="2", name="b", arguments={"x": 1})
    message = AssistantMessage(
        content=(
            ThinkingContent(thinking="hm"),
            TextContent(text="a"),
            first,
            TextContent(text="b"),
            second,
        )
    )
    assert message.text() == "ab"
    calls = message.tool_calls()
    assert calls == [first, second]
    assert calls is not None and calls[0] is not first


def test_helpers_are_nil_safe() -> None:
    empty = AssistantMessage()
    assert empty.text() == ""
    assert empty.tool_calls() is None
    assert empty.thinking() == []


def _full_context() -> Context:
    return Context(
        system_prompt="sys",
        messages=(
            SystemMessage(role="developer", content=(TextContent(text="dev"),)),
            UserMessage(
                content=(
                    TextContent(text="hi", cache_control={"type": "ephemeral"}),
                    ImageContent(data="iVBO", mime_type="image/png"),
                    OpaqueContent(part={"type": "input_audio", "input_audio": {"data": "x"}}),
                ),
                content_form="list",
            ),
            AssistantMessage(
                content=(
                    ThinkingContent(thinking="t", signature="s"),
                    ThinkingContent(thinking="", signature="r", redacted=True),
                    TextContent(text="x", text_signature="ts"),
                    ToolCall(
                        id="c",
                        name="f",
                        arguments={"a": [1, {"b": None}]},
                        thought_signature="g",
                        signature_sites=("id",),
                    ),
                ),
                provider="anthropic",
                api="anthropic-messages",
                model="claude-sonnet-4-5",
                usage=Usage(
                    input=1,
                    output=2,
                    cache_read=3,
                    cache_write=4,
                    total=10,
                    cost=UsageCost(input=0.1, output=0.2, total=0.3),
                ),
                stop_reason="toolUse",
                timestamp=1700000000000,
                response_id="msg_1",
            ),
            ToolResultMessage(
                tool_call_id="c", content=(TextContent(text="r"),), is_error=True, synthesized=True
            ),
        ),
        tools=(ToolDefinition(name="f", parameters={"type": "object", "properties": {}}),),
    )


def test_json_round_trip_is_exact_and_tagged() -> None:
    context = _full_context()
    text = context_to_json(context)
    assert '"kind": "assistant"' in text and '"kind": "tool_call"' in text
    assert context_from_json(text) == context
