"""Content: thinking and reasoning carried as each target takes them, tool arguments,
images, and input odd enough to break a converter.

Foreign thinking as text, DeepSeek's and Kimi's reasoning, OpenAI's reasoning items
replayed only with what follows them, cut tool arguments on LiteLLM's own converters,
images with the type of their bytes (and heavy ones off the event loop), deep JSON and
lone surrogates. Each case is repaired, reported, and valid for the validator.
"""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import pytest
from litellm.litellm_core_utils.prompt_templates.factory import (
    _bedrock_converse_messages_pt,
    convert_to_gemini_tool_call_invoke,
)

from litellm_hygiene import (
    STAMP_KEY,
    HygieneCallback,
    sanitize_messages,
    validate_messages,
)
from litellm_hygiene._integration._request import HEAVY_IMAGE_CHARS
from tests.support.rule_cases import call as _call
from tests.support.rule_cases import checked as _checked
from tests.support.rule_cases import exchange as _exchange
from tests.support.rule_cases import fixed as _fixed
from tests.support.rule_cases import stamp as _stamp

_CLAUDE = _stamp("anthropic", "anthropic-messages", "claude-sonnet-4-5")


_SIGNED = {"type": "thinking", "thinking": "I should look.", "signature": "c2lnbmF0dXJl"}


_CUT = '{"city": "Paris", "unit": "cel'


def _cut_exchange() -> list[dict[str, Any]]:
    call = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": _CUT}}
    return [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": "18C"},
        {"role": "user", "content": "thanks"},
    ]


_GPT5 = {STAMP_KEY: {"provider": "openai", "api": "openai-responses", "model": "gpt-5"}}


_ITEM = {"type": "reasoning", "id": "rs_0a1b", "encrypted_content": "gAAAA", "summary": []}


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


def _jpeg_b64() -> str:
    from io import BytesIO

    from PIL import Image

    buffer = BytesIO()
    Image.new("RGB", (4, 4), "red").save(buffer, "JPEG")
    return base64.b64encode(buffer.getvalue()).decode()


def _big_png_b64() -> str:
    from io import BytesIO

    from PIL import Image

    buffer = BytesIO()
    Image.effect_noise((9000, 400), 64).convert("RGB").save(buffer, "PNG")
    return base64.b64encode(buffer.getvalue()).decode()


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
