"""Requests every provider accepts (issue 10): the rules added for it, case by case.

Mistral's turn order (item 4): Mistral rejects a user turn right after a tool result, a
system message after the conversation has started, an assistant turn first, and an
assistant turn last (unless it is a prefix); behind OpenRouter, Together and vLLM too.
Anthropic (item 7): tool ids unique in the whole request; a blank transcript never
becomes an empty request. Each is repaired, reported, valid for the validator and a
fixed point; other targets are left as they were.
"""

from __future__ import annotations

import asyncio
import base64
import copy
import json
from typing import Any

import pytest
from litellm.litellm_core_utils.prompt_templates.factory import (
    _bedrock_converse_messages_pt,
    convert_to_gemini_tool_call_invoke,
    convert_to_gemini_tool_call_result,
)
from litellm.llms.mistral.chat.transformation import MistralConfig

from litellm_hygiene import STAMP_KEY, HygieneCallback, sanitize_messages, validate_messages
from litellm_hygiene._integration._request import HEAVY_IMAGE_CHARS
from litellm_hygiene._rules.assistant_first import LEADING_USER_TEXT
from litellm_hygiene._rules.empty_content import EMPTY_TURN_TEXT
from litellm_hygiene._rules.turn_order import BRIDGE_TEXT

MISTRALS = [
    "mistral/mistral-large-latest",
    "openrouter/mistralai/mistral-large",
    "together_ai/mistralai/Mixtral-8x7B-Instruct-v0.1",
]


def _call(call_id: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": "f", "arguments": "{}"}}


def _fixed(model: str, messages: list[dict[str, Any]]) -> tuple[list[Any], dict[str, int]]:
    before = copy.deepcopy(messages)
    result = sanitize_messages(messages, model)
    assert messages == before
    assert validate_messages(result.messages, model) == []
    again = sanitize_messages(result.messages, model)
    assert not again.report.changed, again.report.counts()
    return result.messages, result.report.counts()


@pytest.mark.parametrize("model", MISTRALS)
def test_an_assistant_turn_goes_between_results_and_the_next_user_turn(model: str) -> None:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": None, "tool_calls": [_call("abcDEF123")]},
        {"role": "tool", "tool_call_id": "abcDEF123", "content": "18C"},
        {"role": "user", "content": "thanks"},
    ]
    violations = validate_messages(messages, model)
    assert [(v.code, v.index) for v in violations] == [("turn_order", 3)]
    if model.startswith("mistral/"):
        assert violations[0].provider_error == "Unexpected role 'user' after role 'tool'"
    out, counts = _fixed(model, messages)
    assert [m["role"] for m in out] == ["user", "assistant", "tool", "assistant", "user"]
    assert out[3] == {"role": "assistant", "content": BRIDGE_TEXT}
    assert out[4] is messages[3]
    assert counts == {"turn_order": 1}


def test_an_interrupted_call_gets_its_result_and_then_the_bridge() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": None, "tool_calls": [_call("abcDEF123")]},
        {"role": "user", "content": "never mind"},
    ]
    out, counts = _fixed("mistral/mistral-large-latest", messages)
    assert [m["role"] for m in out] == ["user", "assistant", "tool", "assistant", "user"]
    assert counts == {"tool_pairing": 1, "turn_order": 1}


def test_late_system_messages_move_to_the_start_in_order() -> None:
    messages = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "system", "content": "now answer in French"},
        {"role": "user", "content": "and now?"},
        {"role": "developer", "content": "no emoji"},
    ]
    violations = validate_messages(messages, "mistral/mistral-large-latest")
    assert [v.provider_error for v in violations] == [
        "Unexpected role 'system' after role 'assistant'",
        "Unexpected role 'system' after role 'user'",
    ]
    out, counts = _fixed("mistral/mistral-large-latest", messages)
    assert out == [messages[0], messages[3], messages[5], messages[1], messages[2], messages[4]]
    assert counts == {"turn_order": 2}


def test_moving_a_system_message_lets_the_user_turns_around_it_merge() -> None:
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "there"},
    ]
    out, counts = _fixed("mistral/mistral-large-latest", messages)
    assert [m["role"] for m in out] == ["system", "user"]
    assert counts == {"turn_order": 1, "consecutive_turns": 1}


def test_a_last_assistant_turn_becomes_a_prefix_to_continue() -> None:
    messages = [
        {"role": "user", "content": "write a haiku"},
        {"role": "assistant", "content": "Autumn moonlight"},
    ]
    (violation,) = validate_messages(messages, "mistral/mistral-large-latest")
    assert violation.provider_error is not None
    assert violation.provider_error.startswith("Expected last role User or Tool")
    out, counts = _fixed("mistral/mistral-large-latest", messages)
    assert out[1] == {"role": "assistant", "content": "Autumn moonlight", "prefix": True}
    assert counts == {"turn_order": 1}
    prefixed = [messages[0], {**messages[1], "prefix": True}]
    assert not sanitize_messages(prefixed, "mistral/mistral-large-latest").report.changed


def test_an_assistant_turn_first_gets_a_user_turn_before_it() -> None:
    messages = [
        {"role": "system", "content": "s"},
        {"role": "assistant", "content": "How can I help?"},
        {"role": "user", "content": "hi"},
    ]
    out, counts = _fixed("mistral/mistral-large-latest", messages)
    assert out[1] == {"role": "user", "content": LEADING_USER_TEXT}
    assert counts == {"assistant_first": 1}


@pytest.mark.parametrize(
    "model", ["openai/gpt-4o", "anthropic/claude-sonnet-4-5", "deepseek/deepseek-chat"]
)
def test_other_targets_keep_their_order(model: str) -> None:
    messages = [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": None, "tool_calls": [_call("call_1")]},
        {"role": "tool", "tool_call_id": "call_1", "content": "18C"},
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "thanks"},
        {"role": "assistant", "content": "ok"},
    ]
    out = sanitize_messages(messages, model).messages
    assert [m["role"] for m in out][1:] == ["assistant", "tool", "system", "user", "assistant"]


# -- Anthropic (item 7): ids unique in the request, never an empty request ----------------


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


def test_a_whitespace_only_transcript_keeps_the_users_turn() -> None:
    messages = [{"role": "user", "content": "   \n  \t  "}, {"role": "assistant", "content": "  "}]
    out, counts = _fixed("anthropic/claude-sonnet-4-5", messages)
    assert out == [{"role": "user", "content": EMPTY_TURN_TEXT}]
    assert counts == {"empty_content": 4}


def test_a_blank_last_user_turn_is_kept_so_the_request_does_not_end_on_the_assistant() -> None:
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "user", "content": " "},
        {"role": "user", "content": ""},
    ]
    out, _ = _fixed("anthropic/claude-sonnet-4-5", messages)
    assert out[-1] == {"role": "user", "content": EMPTY_TURN_TEXT}
    assert [m["role"] for m in out] == ["user", "assistant", "user"]


# -- Tool arguments that are not JSON (item 8), on LiteLLM's own converters ------------------

_CUT = '{"city": "Paris", "unit": "cel'


def _cut_exchange() -> list[dict[str, Any]]:
    call = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": _CUT}}
    return [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": "18C"},
        {"role": "user", "content": "thanks"},
    ]


@pytest.mark.parametrize(
    "model",
    [
        "gemini/gemini-2.5-pro",
        "bedrock/converse/us.anthropic.claude-3-7-sonnet-20250219-v1:0",
        "anthropic/claude-sonnet-4-5",
    ],
)
def test_cut_arguments_go_as_their_decoded_object(model: str) -> None:
    messages = _cut_exchange()
    (violation,) = validate_messages(messages, model)
    assert violation.code == "tool_arguments"
    if model.startswith("gemini/"):
        assert violation.provider_error == "Unable to convert openai tool calls"
    out, counts = _fixed(model, messages)
    assert counts["tool_arguments"] == 1
    sent = out[1]["tool_calls"][0]["function"]["arguments"]
    assert json.loads(sent) == {"city": "Paris", "unit": "cel"}


def test_gemini_converter_raises_on_cut_arguments_and_takes_them_after_hygiene() -> None:
    turn = _cut_exchange()[1]
    try:
        convert_to_gemini_tool_call_invoke(turn)  # type: ignore[arg-type]
    except Exception as err:  # LiteLLM raises a bare Exception here
        assert "Unable to convert openai tool calls" in str(err)
    else:
        pytest.fail("LiteLLM's Gemini converter took arguments that are not JSON")
    fixed = sanitize_messages(_cut_exchange(), "gemini/gemini-2.5-pro").messages[1]
    (part,) = convert_to_gemini_tool_call_invoke(fixed)
    assert part["function_call"]["args"] == {"city": "Paris", "unit": "cel"}


def test_bedrock_converter_loses_cut_arguments_without_hygiene() -> None:
    model = "bedrock/converse/us.anthropic.claude-3-7-sonnet-20250219-v1:0"

    def sent_input(messages: list[Any]) -> Any:
        blocks = _bedrock_converse_messages_pt(
            messages=messages, model=model.split("/", 2)[2], llm_provider="bedrock_converse"
        )
        return blocks[1]["content"][0]["toolUse"]["input"]

    assert sent_input(_cut_exchange()) == {}
    fixed = sanitize_messages(_cut_exchange(), model).messages
    assert sent_input(fixed) == {"city": "Paris", "unit": "cel"}


@pytest.mark.parametrize("model", ["openai/gpt-4o", "mistral/mistral-large-latest"])
def test_targets_that_take_the_string_keep_it(model: str) -> None:
    out = sanitize_messages(_cut_exchange(), model).messages
    assert out[1]["tool_calls"][0]["function"]["arguments"] == _CUT


# -- OpenAI Responses: reasoning replayed only with what follows it (item 6) -----------------

_GPT5 = {STAMP_KEY: {"provider": "openai", "api": "openai-responses", "model": "gpt-5"}}
_ITEM = {"type": "reasoning", "id": "rs_0a1b", "encrypted_content": "gAAAA", "summary": []}


@pytest.mark.parametrize("content", [None, "", "  "])
def test_a_same_model_turn_of_reasoning_only_is_dropped(content: Any) -> None:
    turn = {"role": "assistant", "content": content, "reasoning_items": [_ITEM], **_GPT5}
    messages = [{"role": "user", "content": "q"}, turn, {"role": "user", "content": "again"}]
    violation, *_ = validate_messages(messages, "openai/responses/gpt-5")
    assert (violation.code, violation.index) == ("lone_reasoning", 1)
    assert violation.provider_error == (
        "Item 'rs_0a1b' of type 'reasoning' was provided without its required following item."
    )
    out, counts = _fixed("openai/responses/gpt-5", messages)
    assert all("reasoning_items" not in m for m in out)
    assert counts["lone_reasoning"] >= 1
    assert [m["content"] for m in out if m["role"] == "user"] == ["q", "again"]


@pytest.mark.parametrize(
    "answer",
    [{"content": "the answer"}, {"content": None, "tool_calls": [_call("call_1")]}],
    ids=["text", "call"],
)
def test_reasoning_followed_by_its_answer_is_replayed(answer: dict[str, Any]) -> None:
    turn = {"role": "assistant", "reasoning_items": [_ITEM], **answer, **_GPT5}
    messages: list[dict[str, Any]] = [{"role": "user", "content": "q"}, turn]
    if "tool_calls" in answer:
        messages.append({"role": "tool", "tool_call_id": "call_1", "content": "r"})
    out = sanitize_messages(messages, "openai/responses/gpt-5").messages
    assert out[1]["reasoning_items"] == [_ITEM]


# -- Robustness (item 11): odd input never escapes as a foreign exception ------------------


def _nested(depth: int) -> dict[str, Any]:
    root: dict[str, Any] = {"a": None}
    node = root
    for _ in range(depth):
        node["a"] = {"a": [1, {"b": None}]}
        node = node["a"]
    return root


def _depth(value: Any) -> int:
    depth = 0
    while isinstance(value, dict) and isinstance(value.get("a"), dict):
        value, depth = value["a"], depth + 1
    return depth


@pytest.mark.parametrize(
    "model",
    ["mistral/mistral-large-latest", "anthropic/claude-sonnet-4-5", "gemini/gemini-2.5-pro"],
)
def test_json_nested_thousands_deep_is_copied_not_a_recursion_error(model: str) -> None:
    deep = _nested(3000)
    parts = [{"type": "text", "text": "", "x": deep}, {"type": "text", "text": "tail"}]
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "q", "metadata": deep},
        {"role": "assistant", "content": "  ", "metadata": deep},
        {"role": "user", "content": parts},
    ]
    out = sanitize_messages(messages, model).messages
    carried = [m["metadata"] for m in out if "metadata" in m]
    assert carried and all(_depth(value) == 3000 for value in carried)


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


# -- Merged and converted turns keep their boundaries (item 10) ----------------------------


def test_thinking_part_does_not_run_into_the_answer_when_litellm_joins_parts() -> None:
    claude = {"provider": "anthropic", "api": "anthropic-messages", "model": "claude-sonnet-4-5"}
    turn = {
        "role": "assistant",
        "content": [{"type": "text", "text": "Let me check."}],
        "thinking_blocks": [{"type": "thinking", "thinking": "in parallel.", "signature": "c2ln"}],
        "tool_calls": [_call("call_1")],
        STAMP_KEY: claude,
    }
    messages = [
        {"role": "user", "content": "q"},
        turn,
        {"role": "tool", "tool_call_id": "call_1", "content": "r"},
    ]
    out = sanitize_messages(messages, "mistral/mistral-large-latest").messages
    joined = MistralConfig()._transform_messages(copy.deepcopy(out), "mistral-large-latest")
    assert joined[1]["content"] == "in parallel.\n\nLet me check."


def test_merged_reasoning_is_a_blank_line_apart() -> None:
    gemini = {"provider": "gemini", "api": "gemini", "model": "gemini-2.5-pro"}
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "a", "reasoning_content": "r0", STAMP_KEY: gemini},
        {"role": "assistant", "content": "b", "reasoning_content": "line", STAMP_KEY: gemini},
        {"role": "user", "content": "n"},
    ]
    out, counts = _fixed("gemini/gemini-2.5-pro", messages)
    assert counts == {"consecutive_turns": 1}
    assert out[1]["reasoning_content"] == "r0\n\nline"


@pytest.mark.parametrize("model", [*MISTRALS, "anthropic/claude-sonnet-4-5"])
def test_whitespace_only_parts_are_left_out_of_a_merge(model: str) -> None:
    messages: list[dict[str, Any]] = [
        {
            "role": "user",
            "content": [{"type": "text", "text": "Look:"}, {"type": "text", "text": " \n "}],
        },
        {
            "role": "user",
            "content": [{"type": "text", "text": "\t"}, {"type": "text", "text": "here"}],
        },
    ]
    result = sanitize_messages(messages, model)
    (merged,) = [m for m in result.messages if m["role"] == "user"]
    assert merged["content"] == [
        {"type": "text", "text": "Look:"},
        {"type": "text", "text": "here"},
    ]
    assert validate_messages(result.messages, model) == []
    assert not sanitize_messages(result.messages, model).report.changed


def test_a_merge_keeps_a_turn_of_whitespace_only_when_nothing_else_is_left() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "Look:"},
        {"role": "user", "content": "   "},
        {"role": "user", "content": "here"},
    ]
    out, counts = _fixed("mistral/mistral-large-latest", messages)
    assert counts == {"consecutive_turns": 2}
    assert out == [{"role": "user", "content": "Look:\n\nhere"}]


# -- Gemini signatures are bound to their endpoint (item 3) --------------------------------


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


# -- Images carry the type of their bytes (item 9) -----------------------------------------


def _jpeg_b64() -> str:
    from io import BytesIO

    from PIL import Image

    buffer = BytesIO()
    Image.new("RGB", (4, 4), "red").save(buffer, "JPEG")
    return base64.b64encode(buffer.getvalue()).decode()


@pytest.mark.parametrize("declared", ["image/png", "image/heic", "application/octet-stream"])
def test_an_image_gets_the_media_type_of_its_bytes(declared: str) -> None:
    data = _jpeg_b64()
    part = {"type": "image_url", "image_url": {"url": f"data:{declared};base64,{data}"}}
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "text", "text": "see"}, part]}
    ]
    (violation,) = validate_messages(messages, "anthropic/claude-sonnet-4-5")
    assert violation.provider_error == (
        "messages.0.content.1.image.source.base64: The image was specified using the "
        f"{declared} media type, but the image appears to be a image/jpeg image"
    )
    out, counts = _fixed("anthropic/claude-sonnet-4-5", messages)
    assert counts == {"image_payload": 1}
    assert out[0]["content"][1]["image_url"]["url"] == f"data:image/jpeg;base64,{data}"


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


# -- Heavy image work runs off the event loop (item 9) -------------------------------------


def _big_png_b64() -> str:
    from io import BytesIO

    from PIL import Image

    buffer = BytesIO()
    Image.effect_noise((9000, 400), 64).convert("RGB").save(buffer, "PNG")
    return base64.b64encode(buffer.getvalue()).decode()


async def test_a_request_with_a_large_image_leaves_the_event_loop_free() -> None:
    """Anthropic takes at most 8000 px a side: the image is re-encoded, off the loop."""
    data = _big_png_b64()
    assert len(data) > HEAVY_IMAGE_CHARS
    url = f"data:image/png;base64,{data}"
    part = {"type": "image_url", "image_url": {"url": url}}
    kwargs = {
        "model": "anthropic/claude-sonnet-4-5",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "see"}, part]}],
    }
    ticks = 0
    running = True

    async def ticker() -> None:
        nonlocal ticks
        while running:
            await asyncio.sleep(0)
            ticks += 1

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0)
    before = ticks
    new = await HygieneCallback().async_pre_call_deployment_hook(kwargs, "acompletion")
    during = ticks - before
    running = False
    await task
    assert new is not None
    assert new["messages"][0]["content"][1]["image_url"]["url"] != url  # re-encoded to fit
    assert during > 0, "the hook held the event loop for the whole image"


# -- DeepSeek and Kimi in thinking mode (item 5) -------------------------------------------

_THINKING = ["deepseek/deepseek-reasoner", "moonshot/kimi-k2-thinking"]


def _claude_tool_turn() -> list[dict[str, Any]]:
    claude = {"provider": "anthropic", "api": "anthropic-messages", "model": "claude-sonnet-4-5"}
    turn = {
        "role": "assistant",
        "content": "Let me check.",
        "thinking_blocks": [{"type": "thinking", "thinking": "plan", "signature": "c2ln"}],
        "reasoning_content": "plan",
        "tool_calls": [_call("toolu_01")],
        STAMP_KEY: claude,
    }
    return [
        {"role": "user", "content": "q"},
        turn,
        {"role": "tool", "tool_call_id": "toolu_01", "content": "r"},
    ]


@pytest.mark.parametrize("model", _THINKING)
def test_another_models_thinking_is_passed_back_as_reasoning_content(model: str) -> None:
    out, counts = _fixed(model, _claude_tool_turn())
    assert out[1]["reasoning_content"] == "plan"
    assert out[1]["content"] == "Let me check."
    assert "thinking_blocks" not in out[1] and "c2ln" not in json.dumps(out)
    assert counts["foreign_reasoning"] == 1


@pytest.mark.parametrize("model", _THINKING)
def test_a_tool_call_turn_without_reasoning_gets_some(model: str) -> None:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": None, "tool_calls": [_call("call_1")]},
        {"role": "tool", "tool_call_id": "call_1", "content": "r"},
    ]
    (violation,) = validate_messages(messages, model)
    # DeepSeek V4's words (LiteLLM #37636), and Kimi's as PROVIDER_RULES.md quotes them.
    field = "`reasoning_content`" if "deepseek" in model else "reasoning_content"
    assert violation.provider_error == (
        f"The {field} in the thinking mode must be passed back to the API."
    )
    out, counts = _fixed(model, messages)
    assert out[1]["reasoning_content"] == " "
    assert counts == {"missing_reasoning": 1}


@pytest.mark.parametrize(
    "model", ["deepseek/deepseek-chat", "groq/llama-3.3-70b-versatile", "openai/gpt-4o"]
)
def test_other_openai_shaped_targets_get_neither_reasoning_nor_thinking_blocks(
    model: str,
) -> None:
    out = sanitize_messages(_claude_tool_turn(), model).messages
    assert "reasoning_content" not in out[1] and "thinking_blocks" not in out[1]
    assert out[1]["content"] == "plan\n\nLet me check."


# -- Found by the seeded property campaign ---------------------------------------------------


@pytest.mark.parametrize("model", ["vertex_ai/gemini-3-pro-preview", "anthropic/claude-sonnet-4-5"])
def test_a_blank_reasoning_copy_goes_with_the_empty_thinking_it_copied(model: str) -> None:
    """Left behind, LiteLLM's ``reasoning_content`` copy would read back as empty thinking."""
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "q"},
        {
            "role": "assistant",
            "content": "a",
            "reasoning_content": "",
            "thinking_blocks": [{"type": "thinking", "thinking": "", "signature": None}],
        },
        {"role": "user", "content": "n"},
    ]
    out, counts = _fixed(model, messages)
    assert counts == {"empty_content": 1}
    assert out[1] == {"role": "assistant", "content": "a"}
