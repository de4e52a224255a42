"""Bad input gets one clear package error naming the message index and field."""

from __future__ import annotations

from typing import Any

import pytest

from litellm_hygiene import ConfigurationError, HygieneError, InvalidMessageError, from_openai

OK = {"role": "user", "content": "fine"}

BAD_INPUT: dict[str, tuple[Any, int, str]] = {
    "message_not_an_object": ("hello", 1, ""),
    "missing_role": ({"content": "x"}, 1, "role"),
    "unknown_role": ({"role": "robot", "content": "x"}, 1, "role"),
    "non_string_role": ({"role": 3, "content": "x"}, 1, "role"),
    "tool_without_tool_call_id": ({"role": "tool", "content": "x"}, 1, "tool_call_id"),
    "tool_call_id_not_a_string": (
        {"role": "tool", "tool_call_id": 7, "content": "x"},
        1,
        "tool_call_id",
    ),
    "content_of_wrong_type": ({"role": "user", "content": 42}, 1, "content"),
    "content_dict_instead_of_list": ({"role": "user", "content": {"type": "text"}}, 1, "content"),
    "part_not_an_object": ({"role": "user", "content": ["hi"]}, 1, "content[0]"),
    "image_without_url": (
        {"role": "user", "content": [{"type": "image_url", "image_url": {"detail": "low"}}]},
        1,
        "content[0].image_url",
    ),
    "tool_calls_not_a_list": (
        {"role": "assistant", "content": None, "tool_calls": {}},
        1,
        "tool_calls",
    ),
    "tool_call_without_function": (
        {"role": "assistant", "content": None, "tool_calls": [{"id": "a", "type": "function"}]},
        1,
        "tool_calls[0].function",
    ),
    "tool_call_without_name": (
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "a", "type": "function", "function": {"arguments": "{}"}}],
        },
        1,
        "tool_calls[0].function.name",
    ),
    "tool_call_arguments_wrong_type": (
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "f", "arguments": 5}}
            ],
        },
        1,
        "tool_calls[0].function.arguments",
    ),
    "function_message_without_name": ({"role": "function", "content": "x"}, 1, "name"),
    "legacy_function_call_without_name": (
        {"role": "assistant", "content": None, "function_call": {"arguments": "{}"}},
        1,
        "function_call",
    ),
}


@pytest.mark.parametrize(("message", "index", "field"), BAD_INPUT.values(), ids=BAD_INPUT.keys())
def test_bad_message_names_index_and_field(message: Any, index: int, field: str) -> None:
    with pytest.raises(InvalidMessageError) as caught:
        from_openai([OK, message])
    error = caught.value
    assert (error.index, error.field) == (index, field)
    assert isinstance(error, HygieneError)
    assert error.code == "invalid_message"
    assert f"messages[{index}]" in str(error)


def test_messages_must_be_a_list() -> None:
    with pytest.raises(ConfigurationError):
        from_openai("hello")


def test_tools_must_be_a_list_of_objects() -> None:
    with pytest.raises(ConfigurationError):
        from_openai([OK], tools=["x"])
