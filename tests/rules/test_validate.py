"""The validator: each rule per provider family, with the provider's own error wording."""

from __future__ import annotations

import ast
import base64
import copy
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

import litellm
import pytest
from hypothesis import given, settings
from PIL import Image

from litellm_hygiene import STAMP_KEY
from litellm_hygiene._families import PROFILES, policy_for
from litellm_hygiene._resolve import resolve_target
from litellm_hygiene._rules import CODES, RULES, Conversation
from litellm_hygiene._rules import _codes as codes_module
from litellm_hygiene._rules._wording import DEFAULTS, ErrorKind, PathKind, wording
from litellm_hygiene._validate import (
    Violation,
    ViolationCode,
    validate_for_target,
    validate_messages,
)
from tests.support.strategies import transcripts

ANTHROPIC = "anthropic/claude-sonnet-4-5"
BEDROCK = "bedrock/converse/us.anthropic.claude-3-7-sonnet-20250219-v1:0"
GEMINI = "gemini/gemini-2.5-pro"
OPENAI = "gpt-4o"
RESPONSES = "openai/responses/gpt-5"
MISTRAL = "mistral/mistral-large-latest"
OR_MISTRAL = "openrouter/mistralai/mistral-large"
OR_GEMINI = "openrouter/google/gemini-2.5-pro"
DEEPSEEK = "deepseek/deepseek-chat"
GROQ = "groq/llama-3.3-70b-versatile"
ALL_MODELS = (ANTHROPIC, BEDROCK, GEMINI, OPENAI, RESPONSES, MISTRAL, OR_MISTRAL, DEEPSEEK)

SIG = "EqQBCkgIAxABGAIiQL0t1cJmUMqzNvJ0MPLKbFQyB7gqEpOPh0hY0y4xeA=="
ID83 = "toolu_" + "A" * 77
ID41 = "call_" + "b" * 36
NO_VISION = {"supports_vision": False}


def stamp(provider: str, api: str, model: str) -> dict[str, Any]:
    return {STAMP_KEY: {"provider": provider, "api": api, "model": model}}


GEMINI_STAMP = stamp("gemini", "gemini", "gemini-2.5-pro")
FLASH_STAMP = stamp("gemini", "gemini", "gemini-2.5-flash")
ANTHROPIC_STAMP = stamp("anthropic", "anthropic-messages", "claude-sonnet-4-5")
BEDROCK_STAMP = stamp("bedrock", "bedrock-converse", "us.anthropic.claude-3-7-sonnet")
OR_GEMINI_STAMP = stamp("openrouter", "openai-compatible", "google/gemini-2.5-pro")


def call(call_id: str | None, name: str = "read", **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "function", "function": {"name": name, "arguments": "{}"}}
    if call_id is not None:
        out["id"] = call_id
    return out | extra


def asst(*calls: dict[str, Any], content: Any = None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        out["tool_calls"] = list(calls)
    return out | extra


def tool(call_id: str, content: Any = "ok", **extra: Any) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": content} | extra


def user(content: Any = "hi") -> dict[str, Any]:
    return {"role": "user", "content": content}


def system(content: str = "be brief") -> dict[str, Any]:
    return {"role": "system", "content": content}


def exchange(call_id: str, **extra: Any) -> list[dict[str, Any]]:
    """user, an assistant call, its result."""
    return [user(), asst(call(call_id), **extra), tool(call_id)]


def thinking(signature: str = SIG) -> dict[str, Any]:
    return {"thinking_blocks": [{"type": "thinking", "thinking": "hm", "signature": signature}]}


def png(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("L", (width, height)).save(buffer, format="PNG")
    return buffer.getvalue()


def _png_header() -> bytes:
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (4, 4)).save(buffer, format="PNG")
    return buffer.getvalue()


PNG_HEADER = _png_header()
"""A real small PNG: padded after it, the image is readable from its header and as
large as the padding makes it."""


UNPADDED = base64.b64encode(PNG_HEADER + b"\0" * ((1 - len(PNG_HEADER)) % 3)).decode()[:-2]
"""A readable image whose base64 lacks its two ``=`` of padding."""


def image(data: bytes | str, mime: str = "image/png") -> dict[str, Any]:
    payload = data if isinstance(data, str) else base64.b64encode(data).decode()
    return {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{payload}"}}


def run(messages: Any, model: str, **kwargs: Any) -> list[Violation]:
    """Validate, and check the input was left exactly as it was."""
    before = copy.deepcopy(messages)
    found = validate_messages(messages, model, **kwargs)
    assert messages == before
    return found


@dataclass(frozen=True)
class Case:
    name: str
    model: str
    messages: list[Any]
    code: ViolationCode
    index: int | None
    wording: str | None
    kwargs: dict[str, Any] = field(default_factory=dict)
    where: str | None = None


def _ids() -> list[Case]:
    return [
        Case(
            "anthropic_rejects_pipe_in_call_id",
            ANTHROPIC,
            exchange("call|1"),
            "tool_call_id",
            1,
            "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'",
            where="tool_calls[0].id",
        ),
        Case(
            # A result answering a call is renamed with it (and reported on the call, see
            # test_answered_result_is_renamed_with_its_call): only an unanswered result's
            # id is its own to report.
            "anthropic_rejects_pipe_in_result_id",
            ANTHROPIC,
            [user(), tool("call|1")],
            "tool_call_id",
            1,
            "messages.0.content.1.tool_result.tool_use_id: String should match pattern "
            "'^[a-zA-Z0-9_-]+$'",
            where="tool_call_id",
        ),
        Case(
            "anthropic_rejects_ids_over_64",
            ANTHROPIC,
            exchange("a" * 65),
            "tool_call_id",
            1,
            "tool_use.id: String should have at most 64 characters",
            where="tool_calls[0].id",
        ),
        Case(
            "bedrock_rejects_ids_over_64",
            BEDROCK,
            exchange(ID83),
            "tool_call_id",
            1,
            "Value at 'messages.1.member.content.0.member.toolUse.toolUseId' failed to satisfy "
            "constraint: Member must have length less than or equal to 64",
            where="tool_calls[0].id",
        ),
        Case(
            "openai_rejects_ids_over_40",
            OPENAI,
            [system(), *exchange(ID83)],
            "tool_call_id",
            2,
            "Invalid 'messages[2].tool_calls[0].id': string too long. Expected a string with "
            "maximum length 40, but got a string with length 83 instead.",
            where="tool_calls[0].id",
        ),
        Case(
            "openai_rejects_result_ids_over_40",
            OPENAI,
            [system(), user(), tool(ID83)],
            "tool_call_id",
            2,
            "Invalid 'messages[2].tool_call_id': string too long. Expected a string with "
            "maximum length 40, but got a string with length 83 instead.",
            where="tool_call_id",
        ),
        Case(
            "openai_rejects_empty_ids",
            OPENAI,
            exchange(""),
            "tool_call_id",
            1,
            "Invalid 'messages[1].tool_calls[0].id': empty string.",
            where="tool_calls[0].id",
        ),
        Case(
            "compatible_rejects_ids_over_40",
            GROQ,
            exchange(ID41),
            "tool_call_id",
            1,
            "Expected a string with maximum length 40, but got a string with length 41",
            where="tool_calls[0].id",
        ),
        Case(
            # DeepSeek documents no id limit: renamed to the cautious 40, without words.
            "deepseek_ids_over_40_renamed_without_a_known_wording",
            DEEPSEEK,
            exchange(ID41),
            "tool_call_id",
            1,
            None,
            where="tool_calls[0].id",
        ),
        Case(
            "deepseek_rejects_pipe_without_a_known_wording",
            DEEPSEEK,
            exchange("call|1"),
            "tool_call_id",
            1,
            None,
            where="tool_calls[0].id",
        ),
        Case(
            "mistral_requires_nine_alphanumerics",
            MISTRAL,
            exchange("toolu_01VpEm654HvfMoRcrE3Hgdc6"),
            "tool_call_id",
            1,
            "Tool call id was toolu_01VpEm654HvfMoRcrE3Hgdc6 but must be a-z, A-Z, 0-9, with a "
            "length of 9.",
            where="tool_calls[0].id",
        ),
        Case(
            "mistral_behind_openrouter_requires_nine_alphanumerics",
            OR_MISTRAL,
            exchange("call_abc"),
            "tool_call_id",
            1,
            "Tool call id was call_abc but must be a-z, A-Z, 0-9, with a length of 9.",
            where="tool_calls[0].id",
        ),
        Case(
            "mistral_rejects_nine_chars_with_underscore",
            MISTRAL,
            exchange("abc_defgh"),
            "tool_call_id",
            1,
            "Tool call id was abc_defgh but must be",
            where="tool_calls[0].id",
        ),
        Case(
            "responses_rejects_call_id_over_64",
            RESPONSES,
            exchange("c" * 65 + "|fc_1"),
            "tool_call_id",
            1,
            "Invalid 'input[1].call_id': string too long. Expected a string with maximum length 64",
            where="tool_calls[0].id",
        ),
        Case(
            "responses_rejects_item_id_characters",
            RESPONSES,
            exchange("call_1|fc_ab+/="),
            "tool_call_id",
            1,
            "Expected an ID that contains letters, numbers, underscores, or dashes",
            where="tool_calls[0].id",
        ),
        Case(
            "responses_requires_fc_item_id",
            RESPONSES,
            exchange("call_1|xy_1"),
            "tool_call_id",
            1,
            "Invalid 'input[1].id': 'xy_1'. Expected an ID that begins with 'fc'.",
            where="tool_calls[0].id",
        ),
        Case(
            "responses_rejects_a_pair_over_64_sent_whole_as_call_id",
            RESPONSES,
            exchange("call_pAYb|fc_0f0d" + "a" * 400),
            "tool_call_id",
            1,
            "Invalid 'input[1].call_id': string too long. Expected a string with maximum length "
            "64, but got a string with length 417 instead.",
            where="tool_calls[0].id",
        ),
        Case(
            "gemini_policy_wants_safe_ids_without_provider_error",
            GEMINI,
            exchange("call.1"),
            "tool_call_id",
            1,
            None,
            where="tool_calls[0].id",
        ),
        Case(
            "openrouter_gemini_receives_the_signature_suffix_in_the_id",
            OR_GEMINI,
            exchange("call_1__thought__" + SIG),
            "tool_call_id",
            1,
            None,
            where="tool_calls[0].id",
        ),
        Case(
            "anthropic_rejects_two_calls_with_one_id",
            ANTHROPIC,
            [user(), asst(call("toolu_1"), call("toolu_1")), tool("toolu_1"), tool("toolu_1")],
            "tool_call_id",
            1,
            "messages.1.content.1: `tool_use` ids must be unique",
            where="tool_calls[1].id",
        ),
        Case(
            "stripped_suffixes_can_collide",
            OPENAI,
            [
                user(),
                asst(call("call_a__thought__AAAA"), call("call_a__thought__BBBB")),
                tool("call_a__thought__AAAA"),
                tool("call_a__thought__BBBB"),
            ],
            "tool_call_id",
            1,
            None,
            where="tool_calls[1].id",
        ),
    ]


def _pairing() -> list[Case]:
    orphan_call = [user(), asst(call("toolu_1")), user("next")]
    orphan_result = [user(), tool("toolu_9")]
    return [
        Case(
            "anthropic_call_without_result",
            ANTHROPIC,
            orphan_call,
            "tool_pairing",
            1,
            "messages.1: `tool_use` ids were found without `tool_result` blocks immediately "
            "after: toolu_1. Each `tool_use` block must have a corresponding `tool_result` "
            "block in the next message.",
            where="tool_calls[0]",
        ),
        Case(
            "bedrock_call_without_result",
            BEDROCK,
            orphan_call,
            "tool_pairing",
            1,
            "Expected toolResult blocks at messages.2.content for the following Ids: toolu_1",
            where="tool_calls[0]",
        ),
        Case(
            "openai_call_without_result",
            OPENAI,
            orphan_call,
            "tool_pairing",
            1,
            "The following tool_call_ids did not have response messages: toolu_1",
            where="tool_calls[0]",
        ),
        Case(
            "responses_call_without_result",
            RESPONSES,
            orphan_call,
            "tool_pairing",
            1,
            "No tool output found for function call toolu_1.",
            where="tool_calls[0]",
        ),
        Case(
            "gemini_call_without_result",
            GEMINI,
            [user(), asst(call("abc1")), user("next")],
            "tool_pairing",
            1,
            "Please ensure that the number of function response parts is equal to the number "
            "of function call parts",
            where="tool_calls[0]",
        ),
        Case(
            "mistral_call_without_result",
            MISTRAL,
            [user(), asst(call("KikbB849t")), user("next")],
            "tool_pairing",
            1,
            "Not the same number of function calls and responses",
            where="tool_calls[0]",
        ),
        Case(
            "call_at_the_end_without_result",
            GROQ,
            [user(), asst(call("call_1"))],
            "tool_pairing",
            1,
            "did not have response messages: call_1",
            where="tool_calls[0]",
        ),
        Case(
            "deepseek_call_at_the_end_without_result",
            DEEPSEEK,
            [user(), asst(call("call_1"))],
            "tool_pairing",
            1,
            "(insufficient tool messages following tool_calls message)",
            where="tool_calls[0]",
        ),
        Case(
            "result_must_directly_follow_the_call",
            OPENAI,
            [user(), asst(call("call_1")), user("wait"), tool("call_1")],
            "tool_pairing",
            3,
            "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'",
            where="tool_call_id",
        ),
        Case(
            # The pipeline moves the result up, so the finding sits on the result.
            "system_message_between_call_and_result_breaks_the_pair",
            OPENAI,
            [user(), asst(call("call_1")), system(), tool("call_1")],
            "tool_pairing",
            3,
            "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'",
            where="tool_call_id",
        ),
        Case(
            "anthropic_result_without_call",
            ANTHROPIC,
            orphan_result,
            "tool_pairing",
            1,
            "messages.0.content.1: unexpected `tool_use_id` found in `tool_result` blocks: "
            "toolu_9. Each `tool_result` block must have a corresponding `tool_use` block in "
            "the previous message.",
            where="tool_call_id",
        ),
        Case(
            "bedrock_result_without_call",
            BEDROCK,
            orphan_result,
            "tool_pairing",
            1,
            "The number of toolResult blocks at messages.0.content exceeds the number of "
            "toolUse blocks of previous turn.",
            where="tool_call_id",
        ),
        Case(
            "openai_result_without_call",
            OPENAI,
            orphan_result,
            "tool_pairing",
            1,
            "Messages with role 'tool' must be a response to a preceding message",
            where="tool_call_id",
        ),
        Case(
            "responses_result_without_call",
            RESPONSES,
            orphan_result,
            "tool_pairing",
            1,
            "No tool call found for function call output with call_id toolu_9.",
            where="tool_call_id",
        ),
        Case(
            "gemini_unnamed_result_without_call_fails_inside_litellm",
            GEMINI,
            orphan_result,
            "tool_pairing",
            1,
            "Missing corresponding tool call for tool response message.",
            where="tool_call_id",
        ),
        Case(
            "gemini_named_result_without_call",
            GEMINI,
            [user(), tool("abc", name="read")],
            "tool_pairing",
            1,
            "Please ensure that function response turn comes immediately after a function "
            "call turn.",
            where="tool_call_id",
        ),
        Case(
            "result_for_another_call",
            ANTHROPIC,
            [user(), asst(call("toolu_1")), tool("toolu_2")],
            "tool_pairing",
            2,
            "unexpected `tool_use_id` found in `tool_result` blocks: toolu_2",
            where="tool_call_id",
        ),
        Case(
            "anthropic_duplicate_result",
            ANTHROPIC,
            [*exchange("toolu_1"), tool("toolu_1")],
            "tool_pairing",
            3,
            "each tool_use must have a single result. Found multiple tool_result blocks with "
            "id: toolu_1",
            where="tool_call_id",
        ),
        Case(
            "deepseek_duplicate_result",
            DEEPSEEK,
            [*exchange("call_1"), tool("call_1")],
            "tool_pairing",
            3,
            "Duplicate value for 'tool_call_id' of call_1 in message[3]",
            where="tool_call_id",
        ),
        Case(
            "legacy_function_call_without_result",
            OPENAI,
            [user(), asst(function_call={"name": "get", "arguments": "{}"}), user("next")],
            "tool_pairing",
            1,
            "did not have response messages: get",
            where="tool_calls[0]",
        ),
        Case(
            "legacy_function_result_without_call",
            OPENAI,
            [user(), {"role": "function", "name": "get", "content": "x"}],
            "tool_pairing",
            1,
            "must be a response to a preceding message",
            where="tool_call_id",
        ),
    ]


def _turns() -> list[Case]:
    two_users = [user(), user("again")]
    two_assistants = [user(), asst(content="a"), asst(content="b")]
    return [
        Case(
            "anthropic_consecutive_users",
            ANTHROPIC,
            two_users,
            "consecutive_turns",
            1,
            'roles must alternate between "user" and "assistant", but found multiple "user" '
            "roles in a row",
            where="role",
        ),
        Case(
            "system_between_users_does_not_separate_turns",
            ANTHROPIC,
            [user(), system(), user("again")],
            "consecutive_turns",
            2,
            'found multiple "user" roles in a row',
            where="role",
        ),
        Case(
            "bedrock_consecutive_users",
            BEDROCK,
            two_users,
            "consecutive_turns",
            1,
            "A conversation must alternate between user and assistant roles.",
            where="role",
        ),
        Case(
            "gemini_consecutive_users",
            GEMINI,
            two_users,
            "consecutive_turns",
            1,
            "Please ensure that multiturn requests alternate between user and model.",
            where="role",
        ),
        Case(
            "mistral_consecutive_users",
            MISTRAL,
            two_users,
            "consecutive_turns",
            1,
            "Conversation roles must alternate user/assistant/user/assistant/...",
            where="role",
        ),
        Case(
            "openrouter_mistral_consecutive_users",
            OR_MISTRAL,
            two_users,
            "consecutive_turns",
            1,
            "Conversation roles must alternate",
            where="role",
        ),
        Case(
            "anthropic_consecutive_assistants",
            ANTHROPIC,
            two_assistants,
            "consecutive_turns",
            2,
            'found multiple "assistant" roles in a row',
            where="role",
        ),
        Case(
            "gemini_consecutive_assistants",
            GEMINI,
            two_assistants,
            "consecutive_turns",
            2,
            "alternate between user and model",
            where="role",
        ),
        Case(
            "anthropic_assistant_first",
            ANTHROPIC,
            [system(), asst(content="hello"), user()],
            "assistant_first",
            1,
            'messages: first message must use the "user" role',
            where="role",
        ),
        Case(
            "bedrock_assistant_first",
            BEDROCK,
            [asst(content="hello"), user()],
            "assistant_first",
            0,
            "A conversation must start with a user message.",
            where="role",
        ),
        Case(
            "gemini_assistant_first_with_calls",
            GEMINI,
            [asst(call("abc1")), tool("abc1"), user()],
            "assistant_first",
            0,
            "Please ensure that function call turn comes immediately after a user turn or "
            "after a function response turn.",
            where="role",
        ),
        Case(
            "gemini_assistant_first_without_calls_has_no_known_wording",
            GEMINI,
            [asst(content="hello"), user()],
            "assistant_first",
            0,
            None,
            where="role",
        ),
    ]


def _signatures() -> list[Case]:
    gemini_call = call("abc1", provider_specific_fields={"thought_signature": SIG})
    return [
        Case(
            "anthropic_rejects_thinking_signed_by_gemini",
            ANTHROPIC,
            exchange("toolu_1", **thinking(), **GEMINI_STAMP),
            "foreign_reasoning",
            1,
            "messages.1.content.0: Invalid `signature` in `thinking` block",
            where="content[0]",
        ),
        Case(
            "anthropic_rejects_redacted_thinking_from_bedrock",
            ANTHROPIC,
            [
                user(),
                asst(
                    content="x",
                    thinking_blocks=[{"type": "redacted_thinking", "data": "abc"}],
                    **BEDROCK_STAMP,
                ),
                user(),
            ],
            "foreign_reasoning",
            1,
            "messages.1.content.0: Invalid `data` in `redacted_thinking` block",
            where="content[0]",
        ),
        Case(
            "declared_source_makes_unstamped_thinking_foreign",
            ANTHROPIC,
            exchange("toolu_1", **thinking()),
            "foreign_reasoning",
            1,
            "Invalid `signature` in `thinking` block",
            {"source_model": GEMINI},
            where="content[0]",
        ),
        Case(
            "evidence_of_anthropic_ids_makes_thinking_foreign_to_gemini",
            GEMINI,
            [user(), asst(content="x", **thinking()), user(), asst(call("toolu_1"), **thinking())],
            "foreign_reasoning",
            3,
            "Corrupted thought signature.",
            where="content[0]",
        ),
        Case(
            "gemini_rejects_tool_call_signature_from_another_gemini",
            GEMINI,
            [user(), asst(gemini_call, **FLASH_STAMP), tool("abc1")],
            "foreign_reasoning",
            1,
            "Corrupted thought signature.",
            where="tool_calls[0]",
        ),
        Case(
            "gemini_rejects_text_signature_from_another_model",
            GEMINI,
            [
                user(),
                asst(
                    content="x",
                    provider_specific_fields={"thought_signatures": [SIG]},
                    **FLASH_STAMP,
                ),
                user(),
            ],
            "foreign_reasoning",
            1,
            "Corrupted thought signature.",
            where="content[0]",
        ),
        Case(
            "gemini_rejects_id_suffix_signature_from_another_model",
            GEMINI,
            [user(), asst(call("abc1__thought__" + SIG), **FLASH_STAMP), tool("abc1")],
            "foreign_reasoning",
            1,
            "Corrupted thought signature.",
            where="tool_calls[0]",
        ),
        Case(
            # LiteLLM strips the suffix itself for a non-Gemini model, but the pipeline
            # drops a foreign turn's signatures wherever they are: reported, unworded.
            "anthropic_drops_the_gemini_suffix_signature_of_a_foreign_call",
            ANTHROPIC,
            exchange("call_1__thought__" + SIG),
            "foreign_reasoning",
            1,
            None,
            where="tool_calls[0]",
        ),
        Case(
            "openai_drops_the_gemini_suffix_signature_of_a_foreign_call",
            OPENAI,
            exchange("call_1__thought__" + SIG),
            "foreign_reasoning",
            1,
            None,
            where="tool_calls[0]",
        ),
        Case(
            "responses_rejects_reasoning_items_of_another_model",
            RESPONSES,
            [
                user(),
                asst(
                    content="x",
                    reasoning_items=[
                        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "e"}
                    ],
                    **stamp("openai", "openai-responses", "o3"),
                ),
                user(),
            ],
            "foreign_reasoning",
            1,
            "The encrypted content for item rs_1 could not be verified.",
            where="content[0]",
        ),
        Case(
            "gemini_rejects_anthropic_message_id_as_signature_even_same_model",
            GEMINI,
            [
                user(),
                asst(
                    call("abc1", provider_specific_fields={"thought_signature": "msg_01abc"}),
                    **GEMINI_STAMP,
                ),
                tool("abc1"),
            ],
            "non_base64_signature",
            1,
            "Invalid value at 'contents[1].parts[0].thought_signature' (TYPE_BYTES), Base64 "
            'decoding failed for "msg_01abc"',
            where="tool_calls[0]",
        ),
        Case(
            "gemini_rejects_non_base64_suffix_signature_of_unstamped_gemini_turn",
            GEMINI,
            [user(), asst(call("abc1__thought__msg_01abc")), tool("abc1")],
            "non_base64_signature",
            1,
            "Base64 decoding failed",
            where="tool_calls[0]",
        ),
        Case(
            "openrouter_gemini_requires_base64_text_signatures",
            OR_GEMINI,
            [
                user(),
                asst(
                    content="x",
                    provider_specific_fields={"thought_signatures": ["msg_01abc"]},
                    **OR_GEMINI_STAMP,
                ),
                user(),
            ],
            "non_base64_signature",
            1,
            None,
            where="content[0]",
        ),
    ]


def _fields() -> list[Case]:
    return [
        Case(
            "openai_rejects_none_thinking_blocks_key",
            OPENAI,
            [user(), asst(content="x", thinking_blocks=None), user()],
            "response_only_field",
            1,
            "Additional properties are not allowed ('thinking_blocks' was unexpected) - "
            "'messages.1'",
            where="thinking_blocks",
        ),
        Case(
            "compatible_rejects_empty_provider_specific_fields",
            GROQ,
            [user(), asst(content="x", provider_specific_fields={"refusal": None}), user()],
            "response_only_field",
            1,
            "Extra inputs are not permitted, field: 'messages[1].provider_specific_fields'",
            where="provider_specific_fields",
        ),
        Case(
            "mistral_rejects_reasoning_content",
            OR_MISTRAL,
            [user(), asst(content="x", reasoning_content="because"), user()],
            "response_only_field",
            1,
            "Extra inputs are not permitted, field: 'messages[1].reasoning_content'",
            where="reasoning_content",
        ),
        Case(
            "responses_rejects_thinking_blocks_key",
            RESPONSES,
            [user(), asst(content="x", thinking_blocks=[]), user()],
            "response_only_field",
            1,
            None,
            where="thinking_blocks",
        ),
        Case(
            "anthropic_strips_reasoning_of_a_foreign_turn",
            ANTHROPIC,
            [user(), asst(content="x", reasoning_content="because", **GEMINI_STAMP), user()],
            "response_only_field",
            1,
            None,
            where="reasoning_content",
        ),
        Case(
            "anthropic_strips_none_response_fields_of_a_foreign_turn",
            ANTHROPIC,
            [user(), asst(content="x", provider_specific_fields=None, **GEMINI_STAMP), user()],
            "response_only_field",
            1,
            None,
            where="provider_specific_fields",
        ),
        Case(
            "stamp_never_reaches_openai",
            OPENAI,
            [user(), asst(content="x", **stamp("openai", "openai-chat", "gpt-4o")), user()],
            "hygiene_stamp",
            1,
            "Additional properties are not allowed ('litellm_hygiene' was unexpected)",
            where="litellm_hygiene",
        ),
        Case(
            "stamp_never_reaches_an_openai_compatible_provider",
            GROQ,
            [user(), asst(content="x", **ANTHROPIC_STAMP), user()],
            "hygiene_stamp",
            1,
            "Extra inputs are not permitted, field: 'messages[1].litellm_hygiene'",
            where="litellm_hygiene",
        ),
    ]


def _images() -> list[Case]:
    small = image(png(4, 4))
    return [
        Case(
            "openai_without_vision_rejects_images",
            OPENAI,
            [user([{"type": "text", "text": "look"}, small])],
            "image_unsupported",
            0,
            "Invalid content type. image_url is only supported by certain models.",
            {"model_info": NO_VISION},
            where="content[1]",
        ),
        Case(
            "remote_image_to_a_non_vision_model",
            ANTHROPIC,
            [user([{"type": "image_url", "image_url": "https://example.com/a.png"}])],
            "image_unsupported",
            0,
            None,
            {"model_info": NO_VISION},
            where="content[0]",
        ),
        Case(
            "images_in_tool_results_count",
            MISTRAL,
            [user(), asst(call("KikbB849t")), tool("KikbB849t", content=[small])],
            "image_unsupported",
            2,
            None,
            {"model_info": NO_VISION},
            where="content[0]",
        ),
        Case(
            "gemini_rejects_invalid_base64_image",
            GEMINI,
            [user([image("not base64!")])],
            "image_payload",
            0,
            "Invalid value at 'contents[0].parts[0].inline_data.data' (TYPE_BYTES), Base64 "
            'decoding failed for "not base64!"',
            where="content[0].image_url",
        ),
        Case(
            "gemini_image_missing_only_its_padding_is_padded",
            GEMINI,
            [user([image(UNPADDED)])],
            "image_payload",
            0,
            "Invalid value at 'contents[0].parts[0].inline_data.data' (TYPE_BYTES), Base64 "
            f'decoding failed for "{UNPADDED[:64]}"',
            where="content[0].image_url",
        ),
        Case(
            "anthropic_rejects_images_over_5_mb",
            ANTHROPIC,
            [user([image(PNG_HEADER + b"\0" * (-len(PNG_HEADER) + 5 * 1024 * 1024 * 3 // 4 + 3))])],
            "image_payload",
            0,
            "messages.0.content.0.image.source.base64: image exceeds 5 MB maximum: 5242884 "
            "bytes > 5242880 bytes",
            where="content[0].image_url",
        ),
        Case(
            "bedrock_rejects_images_over_3_75_mb",
            BEDROCK,
            [user([image(PNG_HEADER + b"\0" * (3_750_001 - len(PNG_HEADER)))])],
            "image_payload",
            0,
            None,
            where="content[0].image_url",
        ),
        Case(
            "anthropic_rejects_sides_over_8000",
            ANTHROPIC,
            [user([image(png(8001, 1))])],
            "image_payload",
            0,
            "messages.0.content.0.image.source.base64.data: At least one of the image dimensions "
            "exceed max allowed size: 8000 pixels",
            where="content[0].image_url",
        ),
        Case(
            "anthropic_many_image_requests_allow_2000",
            ANTHROPIC,
            [user([image(png(2001, 1)), *[small] * 20])],
            "image_payload",
            0,
            "messages.0.content.0.image.source.base64.data: At least one of the image dimensions "
            "exceed max allowed size for many-image requests: 2000 pixels",
            where="content[0].image_url",
        ),
    ]


def _empty_text() -> list[Case]:
    return [
        Case(
            "anthropic_rejects_empty_user_text",
            ANTHROPIC,
            [user("")],
            "empty_content",
            0,
            "messages: text content blocks must be non-empty",
            where="content[0]",
        ),
        Case(
            "anthropic_rejects_whitespace_text_part",
            ANTHROPIC,
            [user([{"type": "text", "text": "  \n"}])],
            "empty_content",
            0,
            "messages: text content blocks must contain non-whitespace text",
            where="content[0]",
        ),
        Case(
            "bedrock_rejects_blank_text",
            BEDROCK,
            [
                user("hi"),
                asst(content="ok"),
                user([{"type": "text", "text": "x"}, {"type": "text", "text": ""}]),
            ],
            "empty_content",
            2,
            "The text field in the ContentBlock object at messages.2.content.1 is blank.",
            where="content[1]",
        ),
        Case(
            "gemini_rejects_empty_assistant_text",
            GEMINI,
            [user(), asst(content=""), user()],
            "empty_content",
            1,
            "Unable to submit request because it has an empty text parameter.",
            where="content[0]",
        ),
    ]


def _empty_beside_calls() -> list[Case]:
    """Empty text beside tool calls is sent as an empty text block (LiteLLM's Anthropic
    converter patches it into a visible placeholder): the pipeline drops it."""
    return [
        Case(
            f"{family}_rejects_empty_text_beside_tool_calls",
            model,
            [user(), asst(call(call_id), content=""), tool(call_id), asst(content="ok")],
            "empty_content",
            1,
            wording,
            where="content[0]",
        )
        for family, model, call_id, wording in (
            ("anthropic", ANTHROPIC, "toolu_1", "messages: text content blocks must be non-empty"),
            (
                "bedrock",
                BEDROCK,
                "tooluse_1",
                "The text field in the ContentBlock object at messages.1.content.0 is blank.",
            ),
            ("gemini", GEMINI, "abc1", "Unable to submit request because it has an empty text"),
        )
    ]


def _malformed() -> list[Case]:
    return [
        Case(
            "message_without_role",
            OPENAI,
            [{"content": "x"}],
            "malformed_message",
            0,
            None,
            where="role",
        ),
        Case(
            "message_that_is_not_an_object",
            ANTHROPIC,
            [user(), 42],
            "malformed_message",
            1,
            None,
            where="",
        ),
        Case(
            "tool_message_without_call_id",
            GEMINI,
            [user(), {"role": "tool", "content": "x"}],
            "malformed_message",
            1,
            None,
            where="tool_call_id",
        ),
        Case(
            "tool_calls_not_a_list",
            MISTRAL,
            [user(), {"role": "assistant", "tool_calls": {"id": "x"}}],
            "malformed_message",
            1,
            None,
            where="tool_calls",
        ),
        Case(
            "content_of_the_wrong_type",
            BEDROCK,
            [{"role": "user", "content": 5}],
            "malformed_message",
            0,
            None,
            where="content",
        ),
    ]


CASES = [*_ids(), *_pairing(), *_turns(), *_signatures(), *_fields(), *_images()]
CASES += [*_empty_text(), *_empty_beside_calls(), *_malformed()]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_rule_is_reported_with_the_provider_wording(case: Case) -> None:
    found = run(case.messages, case.model, **case.kwargs)
    matching = [v for v in found if v.code == case.code and v.index == case.index]
    assert matching, found
    if case.wording is None:
        assert all(v.provider_error is None for v in matching), matching
        assert case.where in {v.field for v in matching}, matching
    else:
        worded = [v for v in matching if case.wording in (v.provider_error or "")]
        assert worded, matching
        assert case.where in {v.field for v in worded}, worded


def test_every_case_names_its_field() -> None:
    assert [c.name for c in CASES if c.where is None] == []


CLEAN: dict[str, tuple[str, list[Any], dict[str, Any]]] = {
    "anthropic_same_model_thinking_and_tools": (
        ANTHROPIC,
        [
            system(),
            user(),
            asst(call("toolu_01V5J7hDMMGwRsAtL4S79whb"), content=None, **thinking()),
            tool("toolu_01V5J7hDMMGwRsAtL4S79whb"),
            asst(content="done", thinking_blocks=None, reasoning_content=None),
            user("thanks"),
        ],
        {},
    ),
    "anthropic_assistant_without_text_beside_calls": (
        ANTHROPIC,
        [user(), asst(call("toolu_1"), content=None), tool("toolu_1"), asst(content="ok")],
        {},
    ),
    "gemini_same_model_suffix_signature": (GEMINI, exchange("abc1__thought__" + SIG), {}),
    "anthropic_declared_same_source": (
        ANTHROPIC,
        exchange("toolu_1", **thinking()),
        {"source_model": "anthropic/claude-sonnet-4-5-20250929"},
    ),
    "bedrock_tool_loop": (BEDROCK, [user(), asst(call("tooluse_abc")), tool("tooluse_abc")], {}),
    "gemini_same_model_signatures": (
        GEMINI,
        [
            user(),
            asst(call("abc1", provider_specific_fields={"thought_signature": SIG})),
            tool("abc1"),
            asst(content="x", provider_specific_fields={"thought_signatures": [SIG]}),
            user(),
        ],
        {},
    ),
    "openai_tool_loop": (
        OPENAI,
        [
            system(),
            user(),
            asst(call("call_0fypS1hVX")),
            tool("call_0fypS1hVX"),
            asst(content="ok"),
        ],
        {},
    ),
    "openai_consecutive_users_are_fine": (OPENAI, [user(), user("again")], {}),
    "openai_empty_text_is_fine": (OPENAI, [user("")], {}),
    "responses_pair_ids": (RESPONSES, exchange("call_pAYb|fc_0f0d" + "a" * 40), {}),
    "mistral_nine_alphanumerics": (MISTRAL, exchange("KikbB849t"), {}),
    "mistral_bridged_results": (
        MISTRAL,
        [*exchange("KikbB849t"), asst(content="(tool results received)"), user()],
        {},
    ),
    "openrouter_mistral": (OR_MISTRAL, exchange("KikbB849t"), {}),
    "deepseek_tool_loop": (DEEPSEEK, [*exchange("call_0"), asst(content="x"), user()], {}),
    "deepseek_images_with_unknown_vision": (DEEPSEEK, [user([image(png(2, 2))])], {}),
    "remote_images_are_not_measured": (
        ANTHROPIC,
        [user([{"type": "image_url", "image_url": {"url": "https://example.com/huge.png"}}])],
        {},
    ),
    "legacy_function_pair": (
        OPENAI,
        [
            user(),
            asst(function_call={"name": "get", "arguments": "{}"}),
            {"role": "function", "name": "get", "content": "x"},
        ],
        {},
    ),
    "empty": (ANTHROPIC, [], {}),
}


@pytest.mark.parametrize("name", sorted(CLEAN))
def test_clean_transcript_gives_nothing(name: str) -> None:
    model, messages, kwargs = CLEAN[name]
    assert run(messages, model, **kwargs) == []


def test_answered_result_is_renamed_with_its_call() -> None:
    # The result's id breaks Anthropic's pattern too, but it is fixed by renaming the
    # call it answers: one violation, on the call.
    found = run(exchange("call|1"), ANTHROPIC)
    assert [(v.code, v.index, v.field) for v in found] == [("tool_call_id", 1, "tool_calls[0].id")]
    assert found[0].provider_error == (
        "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"
    )


def test_stamped_same_model_turn_reports_nothing_where_litellm_drops_the_stamp() -> None:
    # LiteLLM builds Claude's messages from the keys it knows (tests/shapes/test_wire_keys.py).
    messages = exchange("toolu_1", **thinking(), **ANTHROPIC_STAMP)
    assert run(messages, ANTHROPIC) == []


def test_messages_not_a_list_is_a_request_violation() -> None:
    found = validate_messages(user(), OPENAI)  # type: ignore[arg-type]
    assert [(v.code, v.index) for v in found] == [("malformed_request", None)]


def _over_total() -> tuple[list[Violation], int]:
    """Two images in two messages whose bytes together exceed a lowered Gemini limit."""
    target = resolve_target(GEMINI)
    size = len(PNG_HEADER) + 60
    limit = 2 * size - 20
    policy = policy_for(target).model_copy(update={"max_total_image_bytes": limit})
    messages = [
        user([image(PNG_HEADER + b"\0" * 60)]),
        asst(content="seen"),
        user([{"type": "text", "text": "and"}, image(PNG_HEADER + b"\0" * 60)]),
    ]
    return validate_for_target(messages, target, policy), limit


def test_total_image_bytes_reports_the_images_it_would_shrink() -> None:
    # No request-level violation any more: each image the total-size rule would shrink
    # (or, when it cannot, replace) is an image_payload finding on its own message. The
    # largest goes first (the first of equals); once it is replaced the total fits, so
    # the second image is left alone and not reported.
    found, _ = _over_total()
    assert [(v.code, v.index, v.field) for v in found] == [
        ("image_payload", 0, "content[0].image_url"),
    ]


def test_total_image_bytes_carries_the_provider_wording() -> None:
    found, limit = _over_total()
    assert found
    wording = f"Request payload size exceeds the limit: {limit} bytes."
    assert [v.provider_error for v in found] == [wording] * len(found)


@pytest.mark.filterwarnings("ignore:Item 'summary' on TypedDict:UserWarning")
def test_litellm_message_objects_are_read() -> None:
    messages = [user(), litellm.Message(role="assistant", content="hi"), user()]
    assert validate_messages(messages, ANTHROPIC) == []
    # Its dump carries provider_specific_fields=None, which LiteLLM forwards to OpenAI.
    found = validate_messages(messages, OPENAI)
    assert [(v.code, v.index, v.field) for v in found] == [
        ("response_only_field", 1, "provider_specific_fields")
    ]


def test_violations_are_ordered_by_index_and_frozen() -> None:
    found = run([user(""), *exchange("call|1")], ANTHROPIC)
    assert [v.index for v in found] == sorted(v.index for v in found if v.index is not None)
    with pytest.raises(ValueError, match="frozen"):
        found[0].index = 7  # type: ignore[misc]


def test_every_code_has_a_rule() -> None:
    assert tuple(rule.code for rule in RULES) == CODES
    validator_own = {"malformed_message", "malformed_request"}
    assert set(CODES) | validator_own == set(get_args(ViolationCode))
    assert not set(CODES) & validator_own
    # The table of constraints in the codes module documents every code (read from the
    # source: a compiled module keeps no docstring).
    source = Path(codes_module.__file__ or "").with_name("_codes.py").read_text()
    doc = ast.get_docstring(ast.parse(source)) or ""
    for code in get_args(ViolationCode):
        assert f"\n{code} " in doc, code


@pytest.mark.parametrize("model", ALL_MODELS)
def test_every_wording_formats(model: str) -> None:
    profile = PROFILES[resolve_target(model).family]
    positions = {"i": 3, "m": 2, "next_m": 3, "c": 1, "exact": 9}
    for rule in RULES:
        words = profile.words(rule.code)
        for kind in get_args(ErrorKind):
            for path in get_args(PathKind):
                text = wording(words, profile.paths, kind, path, DEFAULTS | positions)
                assert text is None or "{" not in text, (rule.code, kind, text)


def test_every_wording_table_uses_known_rules_and_kinds() -> None:
    kinds = set(get_args(ErrorKind))
    codes = {rule.code for rule in RULES}
    for family, profile in PROFILES.items():
        for code, table in profile.wording.items():
            assert code in codes, (family, code)
            assert set(table) <= kinds, (family, code, set(table) - kinds)


JUNK: list[Any] = [
    [None],
    [{"role": 5}],
    [{"role": "assistant", "tool_calls": [None, {"function": "x"}, {"id": 3}]}],
    [{"role": "assistant", "thinking_blocks": "x", "provider_specific_fields": 3}],
    [{"role": "assistant", "thinking_blocks": [1, {"type": "thinking"}], "reasoning_items": [2]}],
    [{"role": "assistant", "content": [1, {"type": "thinking", "signature": 3}]}],
    [{"role": "assistant", "function_call": "x"}, {"role": "function"}],
    [{"role": "tool", "tool_call_id": 5}, {"role": "tool", "tool_call_id": None}],
    [{"role": "user", "content": [1, {"type": "image_url", "image_url": 5}, {"type": "text"}]}],
    [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:;base64,"}}]}],
    [{"role": "assistant", STAMP_KEY: [1], "tool_calls": [{"function": {"name": "x"}}]}],
    [{"role": "assistant", STAMP_KEY: {"api": "nope"}, **thinking()}],
    ({"role": "user", "content": "tuple input"},),
]


@pytest.mark.parametrize("model", ALL_MODELS)
@pytest.mark.parametrize("messages", JUNK, ids=lambda m: repr(m)[:40])
def test_junk_never_raises(messages: Any, model: str) -> None:
    for violation in run(messages, model):
        assert isinstance(violation, Violation)


@settings(max_examples=60, deadline=None)
@given(transcripts)
def test_any_transcript_is_checked_without_mutation(messages: list[dict[str, Any]]) -> None:
    for model in (ANTHROPIC, GEMINI, RESPONSES, MISTRAL):
        run(messages, model)


def _long_transcript(turns: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [system()]
    for n in range(turns):
        call_id = f"call_{n:08d}"
        messages += [
            user(f"step {n}"),
            asst(call(call_id), content=""),
            tool(call_id, content="result " * 20),
            asst(content=f"done {n}"),
        ]
    return messages


def test_clean_transcript_is_checked_without_building_models(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The hot-path proof: a clean request is scanned as dicts, never decoded into the
    # neutral model. (Cost ratios are measured in benchmarks/, never asserted on time.)
    calls: list[int] = []

    def counting(self: Conversation, index: int) -> Any:
        calls.append(index)
        raise AssertionError("decoded a message on the clean path")

    monkeypatch.setattr(Conversation, "message", counting)
    target = resolve_target(OPENAI)
    assert validate_for_target(_long_transcript(400), target, policy_for(target)) == []
    assert calls == []
