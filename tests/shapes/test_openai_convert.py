"""Table tests: every OpenAI-shaped field LiteLLM users send round-trips exactly."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from litellm_hygiene import (
    STAMP_KEY,
    AssistantMessage,
    ImageContent,
    OpaqueContent,
    SystemMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    from_openai,
    to_openai,
    tools_to_openai,
)

SIG = "EqQBCkgIAxABGAIiQL0t1cJmUMqzNvJ0MPLKbFQyB7gqEpOPh0hY0y4xeA=="

ROUND_TRIP_CASES: dict[str, list[dict[str, Any]]] = {
    "system_string_is_lifted": [{"role": "system", "content": "be brief"}],
    "system_with_name": [{"role": "system", "content": "x", "name": "ops"}],
    "developer_role": [{"role": "developer", "content": "rules"}],
    "system_list_with_cache_control": [
        {
            "role": "system",
            "content": [{"type": "text", "text": "big", "cache_control": {"type": "ephemeral"}}],
        }
    ],
    "system_mid_conversation": [
        {"role": "user", "content": "hi"},
        {"role": "system", "content": "now be formal"},
    ],
    "user_string": [{"role": "user", "content": "hello"}],
    "user_empty_string": [{"role": "user", "content": ""}],
    "user_single_text_part_stays_a_list": [
        {"role": "user", "content": [{"type": "text", "text": "hello"}]}
    ],
    "user_name_and_null_name": [
        {"role": "user", "content": "a", "name": "alice"},
        {"role": "user", "content": "b", "name": None},
    ],
    "user_message_cache_control": [
        {"role": "user", "content": "long", "cache_control": {"type": "ephemeral"}}
    ],
    "image_data_url_with_detail": [
        {
            "role": "user",
            "content": [
                {
                    "type": "image_url",
                    "image_url": {"url": "data:image/png;base64,iVBO", "detail": "low"},
                }
            ],
        }
    ],
    "image_http_url": [
        {
            "role": "user",
            "content": [{"type": "image_url", "image_url": {"url": "https://e.x/a.jpg"}}],
        }
    ],
    "image_url_as_bare_string": [
        {"role": "user", "content": [{"type": "image_url", "image_url": "https://e.x/a.jpg"}]}
    ],
    "image_url_format_key": [
        {
            "role": "user",
            "content": [
                {"type": "image_url", "image_url": {"url": "https://e.x/a", "format": "image/webp"}}
            ],
        }
    ],
    "image_unsplittable_data_url": [
        {
            "role": "user",
            "content": [
                {"type": "image_url", "image_url": {"url": "data:image/svg+xml;utf8,<svg/>"}}
            ],
        }
    ],
    "input_audio_part": [
        {
            "role": "user",
            "content": [{"type": "input_audio", "input_audio": {"data": "UklG", "format": "wav"}}],
        }
    ],
    "file_part": [
        {
            "role": "user",
            "content": [
                {"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBE"}}
            ],
        }
    ],
    "unknown_future_part": [
        {"role": "user", "content": [{"type": "hologram", "hologram": {"x": [1, 2]}}]}
    ],
    "part_with_unknown_key": [
        {"role": "user", "content": [{"type": "text", "text": "t", "annotations": [1]}]}
    ],
    "assistant_string": [{"role": "assistant", "content": "ok"}],
    "assistant_null_content_with_tools": [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        }
    ],
    "assistant_absent_content": [
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        }
    ],
    "assistant_list_content": [
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
        }
    ],
    "assistant_empty_and_null_tool_calls": [
        {"role": "assistant", "content": "a", "tool_calls": []},
        {"role": "assistant", "content": "b", "tool_calls": None, "function_call": None},
    ],
    "truncated_arguments_kept_verbatim": [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "f", "arguments": '{"q": "ab'}}
            ],
        }
    ],
    "arguments_with_odd_spacing": [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c",
                    "type": "function",
                    "function": {"name": "f", "arguments": '{ "a" :1 }'},
                }
            ],
        }
    ],
    "arguments_as_object": [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "f", "arguments": {"a": 1}}}
            ],
        }
    ],
    "tool_call_index_and_psf": [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "index": 0,
                    "id": "call_x",
                    "type": "function",
                    "function": {"name": "f", "arguments": "{}"},
                    "provider_specific_fields": {"other": 1},
                }
            ],
        }
    ],
    "empty_tool_call_id": [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "", "content": "r"},
    ],
    "null_tool_call_id": [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": None, "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        }
    ],
    "gemini_thought_id": [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_abc__thought__{SIG}",
                    "type": "function",
                    "function": {"name": "f", "arguments": "{}"},
                    "provider_specific_fields": {"thought_signature": SIG},
                }
            ],
        },
        {"role": "tool", "tool_call_id": f"call_abc__thought__{SIG}", "content": "r"},
    ],
    "gemini_signature_on_function": [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_abc",
                    "type": "function",
                    "function": {
                        "name": "f",
                        "arguments": "{}",
                        "provider_specific_fields": {"thought_signature": SIG},
                    },
                }
            ],
        }
    ],
    "reasoning_content_alone": [
        {"role": "assistant", "content": "4", "reasoning_content": "2+2 is 4"}
    ],
    "thinking_blocks_with_mirror": [
        {
            "role": "assistant",
            "content": "hi",
            "reasoning_content": "think",
            "thinking_blocks": [
                {"type": "thinking", "thinking": "think", "signature": SIG},
                {"type": "redacted_thinking", "data": "EmwKAhgB"},
            ],
            "provider_specific_fields": {"citations": None},
        }
    ],
    "thinking_parts_in_content": [
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "t", "signature": SIG},
                {
                    "type": "redacted_thinking",
                    "data": "EmwK",
                    "cache_control": {"type": "ephemeral"},
                },
                {"type": "text", "text": "answer"},
            ],
        }
    ],
    "reasoning_items": [
        {
            "role": "assistant",
            "content": "x",
            "reasoning_items": [
                {
                    "type": "reasoning",
                    "id": "rs_1",
                    "encrypted_content": "gAAAA",
                    "summary": [{"type": "summary_text", "text": "a"}],
                }
            ],
        }
    ],
    "gemini_text_signatures": [
        {
            "role": "assistant",
            "content": "x",
            "provider_specific_fields": {"thought_signatures": [SIG]},
        }
    ],
    "text_signatures_that_do_not_line_up": [
        {
            "role": "assistant",
            "content": "x",
            "provider_specific_fields": {"thought_signatures": [SIG, SIG]},
        }
    ],
    "response_only_extras": [
        {
            "role": "assistant",
            "content": "x",
            "refusal": None,
            "annotations": [],
            "audio": {"id": "a"},
            "images": [],
        }
    ],
    "legacy_function_call_and_role": [
        {
            "role": "assistant",
            "content": None,
            "function_call": {"name": "f", "arguments": '{"a":1}'},
        },
        {"role": "function", "name": "f", "content": "r"},
    ],
    "function_role_with_tool_call_id": [
        {"role": "function", "name": "f", "content": None, "tool_call_id": "call_9"}
    ],
    "tool_list_content_and_name": [
        {
            "role": "tool",
            "tool_call_id": "t",
            "name": "f",
            "content": [{"type": "text", "text": "r"}],
        }
    ],
    "tool_image_result": [
        {
            "role": "tool",
            "tool_call_id": "t",
            "content": [{"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,/9j/"}}],
        }
    ],
    "stamp": [
        {
            "role": "assistant",
            "content": "x",
            STAMP_KEY: {"provider": "anthropic", "api": "anthropic-messages", "model": "claude"},
        }
    ],
    "malformed_stamp_is_kept_verbatim": [
        {"role": "assistant", "content": "x", STAMP_KEY: {"provider": 3}}
    ],
}


@pytest.mark.parametrize("messages", ROUND_TRIP_CASES.values(), ids=ROUND_TRIP_CASES.keys())
def test_round_trip_is_exact(messages: list[dict[str, Any]]) -> None:
    before = copy.deepcopy(messages)
    assert to_openai(from_openai(messages)) == messages
    assert messages == before


def test_output_never_aliases_the_input() -> None:
    messages = ROUND_TRIP_CASES["thinking_blocks_with_mirror"]
    out = to_openai(from_openai(messages))
    out[0]["thinking_blocks"][0]["thinking"] = "changed"
    out[0]["provider_specific_fields"]["citations"] = 1
    assert messages[0]["thinking_blocks"][0]["thinking"] == "think"
    assert messages[0]["provider_specific_fields"]["citations"] is None


def test_leading_plain_system_message_becomes_the_system_prompt() -> None:
    context = from_openai(
        [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]
    )
    assert context.system_prompt == "be brief"
    assert len(context.messages) == 1


def test_system_message_with_extras_stays_in_place() -> None:
    context = from_openai(ROUND_TRIP_CASES["system_with_name"])
    assert context.system_prompt is None
    assert isinstance(context.messages[0], SystemMessage)
    assert context.messages[0].name == "ops"


def test_image_data_url_is_split_into_bytes_and_mime_type() -> None:
    message = from_openai(ROUND_TRIP_CASES["image_data_url_with_detail"]).messages[0]
    assert isinstance(message, UserMessage)
    image = message.content[0]
    assert image == ImageContent(data="iVBO", mime_type="image/png", detail="low")


def test_http_image_is_kept_as_a_url() -> None:
    message = from_openai(ROUND_TRIP_CASES["image_http_url"]).messages[0]
    assert isinstance(message, UserMessage)
    assert message.content[0] == ImageContent(url="https://e.x/a.jpg")


@pytest.mark.parametrize("case", ["input_audio_part", "file_part", "unknown_future_part"])
def test_unmodelled_parts_are_opaque_passthrough(case: str) -> None:
    message = from_openai(ROUND_TRIP_CASES[case]).messages[0]
    assert isinstance(message, UserMessage)
    block = message.content[0]
    assert isinstance(block, OpaqueContent)
    assert block.part == ROUND_TRIP_CASES[case][0]["content"][0]


def test_thinking_blocks_become_signed_and_redacted_thinking() -> None:
    message = from_openai(ROUND_TRIP_CASES["thinking_blocks_with_mirror"]).messages[0]
    assert isinstance(message, AssistantMessage)
    first, second, text = message.content
    assert first == ThinkingContent(thinking="think", signature=SIG)
    assert second == ThinkingContent(thinking="", signature="EmwKAhgB", redacted=True)
    assert text == TextContent(text="hi")
    assert message.reasoning_content == "think"


def test_reasoning_content_alone_is_thinking() -> None:
    message = from_openai(ROUND_TRIP_CASES["reasoning_content_alone"]).messages[0]
    assert isinstance(message, AssistantMessage)
    assert message.thinking() == [ThinkingContent(thinking="2+2 is 4", origin="reasoning_content")]
    assert message.reasoning_content is None


def test_reasoning_item_summary_is_thinking_with_encrypted_signature() -> None:
    message = from_openai(ROUND_TRIP_CASES["reasoning_items"]).messages[0]
    assert isinstance(message, AssistantMessage)
    (block,) = message.thinking()
    assert (block.thinking, block.signature, block.origin) == ("a", "gAAAA", "reasoning_items")


def test_gemini_id_is_split_into_id_and_thought_signature() -> None:
    call_msg, result = from_openai(ROUND_TRIP_CASES["gemini_thought_id"]).messages
    assert isinstance(call_msg, AssistantMessage)
    assert isinstance(result, ToolResultMessage)
    (call,) = call_msg.tool_calls() or []
    assert (call.id, call.thought_signature) == ("call_abc", SIG)
    assert call.signature_sites == ("id", "provider_specific_fields")
    assert (result.tool_call_id, result.thought_signature) == ("call_abc", SIG)


def test_dropping_a_signature_removes_it_from_every_site() -> None:
    call_msg = from_openai(ROUND_TRIP_CASES["gemini_thought_id"]).messages[0]
    assert isinstance(call_msg, AssistantMessage)
    call = call_msg.content[0]
    assert isinstance(call, ToolCall)
    stripped = call_msg.model_copy(
        update={"content": (call.model_copy(update={"thought_signature": None}),)}
    )
    (out,) = to_openai(from_openai([]).model_copy(update={"messages": (stripped,)}))
    assert out["tool_calls"][0]["id"] == "call_abc"
    assert "provider_specific_fields" not in out["tool_calls"][0]


def test_text_signatures_line_up_with_text_blocks() -> None:
    message = from_openai(ROUND_TRIP_CASES["gemini_text_signatures"]).messages[0]
    assert isinstance(message, AssistantMessage)
    assert message.content == (TextContent(text="x", text_signature=SIG),)
    assert message.provider_specific_fields == {}


def test_truncated_arguments_decode_best_effort() -> None:
    message = from_openai(ROUND_TRIP_CASES["truncated_arguments_kept_verbatim"]).messages[0]
    assert isinstance(message, AssistantMessage)
    (call,) = message.tool_calls() or []
    assert call.arguments == {"q": "ab"}
    assert call.raw_arguments == '{"q": "ab'


def test_rewritten_arguments_are_reencoded() -> None:
    message = from_openai(ROUND_TRIP_CASES["arguments_with_odd_spacing"]).messages[0]
    assert isinstance(message, AssistantMessage)
    (call,) = message.tool_calls() or []
    new_call = call.model_copy(update={"arguments": {"a": 2}, "raw_arguments": None})
    out = to_openai(
        from_openai([]).model_copy(
            update={"messages": (message.model_copy(update={"content": (new_call,)}),)}
        )
    )
    assert out[0]["tool_calls"][0]["function"]["arguments"] == '{"a": 2}'


def test_legacy_function_call_is_a_tool_call_without_id() -> None:
    call_msg, result = from_openai(ROUND_TRIP_CASES["legacy_function_call_and_role"]).messages
    assert isinstance(call_msg, AssistantMessage)
    assert isinstance(result, ToolResultMessage)
    (call,) = call_msg.tool_calls() or []
    assert (call.id, call.name, call.origin) == ("", "f", "function_call")
    assert (result.role, result.tool_name, result.tool_call_id) == ("function", "f", "")


def test_legacy_call_given_an_id_is_written_as_a_modern_tool_call() -> None:
    call_msg = from_openai(ROUND_TRIP_CASES["legacy_function_call_and_role"]).messages[0]
    assert isinstance(call_msg, AssistantMessage)
    call = call_msg.content[0]
    assert isinstance(call, ToolCall)
    renamed = call_msg.model_copy(
        update={"content": (call.model_copy(update={"id": "abcdefghi"}),)}
    )
    (out,) = to_openai(from_openai([]).model_copy(update={"messages": (renamed,)}))
    assert "function_call" not in out
    assert out["tool_calls"][0]["id"] == "abcdefghi"


def test_stamp_sets_provenance() -> None:
    message = from_openai(ROUND_TRIP_CASES["stamp"]).messages[0]
    assert isinstance(message, AssistantMessage)
    assert (message.provider, message.api, message.model, message.stamped) == (
        "anthropic",
        "anthropic-messages",
        "claude",
        True,
    )


# LiteLLM's types emit this pydantic warning once, when their schema is first built.
@pytest.mark.filterwarnings("ignore:Item .* is using the `ReadOnly` qualifier:UserWarning")
def test_pydantic_message_objects_are_accepted() -> None:
    import litellm

    message = litellm.Message(content="hi", role="assistant")
    context = from_openai([{"role": "user", "content": "q"}, message])
    assert isinstance(context.messages[1], AssistantMessage)
    assert to_openai(context)[1] == message.model_dump()


def test_tools_keep_their_schema_untouched() -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    tools = [
        {
            "type": "function",
            "function": {"name": "search", "description": "d", "parameters": schema},
        },
        {"type": "web_search_preview"},
    ]
    context = from_openai([], tools=tools)
    assert context.tools[0].parameters == schema
    assert context.tools[0].name == "search"
    assert tools_to_openai(context) == tools


_GOOD_STAMP = {"provider": "anthropic", "api": "anthropic-messages", "model": "claude-x"}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (_GOOD_STAMP, ("anthropic", "anthropic-messages", "claude-x")),
        ({"api": "gemini", "model": "gemini-2.5-pro"}, (None, "gemini", "gemini-2.5-pro")),
        ({"provider": None, "api": None, "model": None}, (None, None, None)),
        ({}, (None, None, None)),
        ({**_GOOD_STAMP, "extra": 1}, None),  # a key a stamp never has
        ({"provider": "anthropic", "model": "m", "other": None}, None),
        ({"api": "no-such-api", "model": "m"}, None),
        ({"api": 3, "model": "m"}, None),
        ({"provider": ["anthropic"], "model": "m"}, None),
        ({"model": b"m"}, None),
        ("anthropic", None),
        (None, None),
    ],
)
def test_a_stamp_is_read_only_when_well_formed(value: Any, expected: Any) -> None:
    """Only ``provider``, ``api`` and ``model``, each a string or null, ``api`` a known
    protocol: anything else is not a stamp hygiene wrote, and is not trusted."""
    from litellm_hygiene._openai._decode import decode_stamp, read_stamp

    assert read_stamp(value) == expected
    decoded = decode_stamp(value)
    if expected is None:
        assert decoded is None
    else:
        fields = dict(zip(("provider", "api", "model"), expected, strict=True))
        assert decoded == {**fields, "stamped": True}
