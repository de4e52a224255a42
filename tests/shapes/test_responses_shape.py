"""The OpenAI Responses shape: read into the neutral model and written back exactly."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from litellm_hygiene import (
    AssistantMessage,
    ConfigurationError,
    Context,
    ImageContent,
    InvalidMessageError,
    OpaqueContent,
    SystemMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    context_from_json,
    context_to_json,
    from_openai,
)
from litellm_hygiene._openai._decode import decode_message
from litellm_hygiene._openai._encode import encode_message
from litellm_hygiene._openai._facts import read_facts
from litellm_hygiene._pipeline import transform_messages
from litellm_hygiene._recall import Recall, Seen
from litellm_hygiene._resolve import resolve_target
from litellm_hygiene._responses import from_responses, to_responses
from litellm_hygiene._responses._chat import read_as_chat
from litellm_hygiene._rules.tool_pairing import NO_RESULT_TEXT
from litellm_hygiene._view import wire_plan
from tests.support.strategies import cache_control, json_values, text, transcripts, with_optional

SETTINGS = settings(max_examples=300, deadline=None)
ENCRYPTED = "gAAAAABo9x1Qm3CqZ0cV5wA1hXo0k7t7Y9m2ZPq_1kQ=="
GEMINI = "CiQBVKhc7mO4GPk1KLSHYaBB4gK1dAAYD4sAj1x0qQ4rFO0+iRoKWgFUqFzu"
PLAN = wire_plan(resolve_target("openai/gpt-4o"))
AZURE_RESPONSES = resolve_target("azure/responses/gpt-4o")
RESPONSES = resolve_target("openai/responses/gpt-5")

CODEX: list[dict[str, Any]] = [
    {
        "type": "message",
        "role": "developer",
        "content": [{"type": "input_text", "text": "<permissions instructions>"}],
    },
    {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": "Fix the failing test"}],
    },
    {
        "type": "reasoning",
        "id": "rs_68a1",
        "summary": [{"type": "summary_text", "text": "**Running the tests**"}],
        "content": None,
        "encrypted_content": ENCRYPTED,
    },
    {
        "type": "function_call",
        "id": "fc_68a2",
        "call_id": "call_Xk2",
        "name": "shell",
        "arguments": '{"command":["pytest","-q"]}',
        "status": "completed",
    },
    {"type": "function_call_output", "call_id": "call_Xk2", "output": "1 failed, 3 passed"},
    {
        "type": "message",
        "role": "assistant",
        "id": "msg_68a3",
        "status": "completed",
        "content": [
            {
                "type": "output_text",
                "text": "The test expects UTC.",
                "annotations": [{"type": "url_citation", "url": "https://docs.python.org"}],
                "logprobs": [],
            }
        ],
    },
    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go on"}]},
]
INTERRUPTED: list[dict[str, Any]] = [
    {"role": "user", "content": "list the files"},
    {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "ls", "arguments": "{}"},
    {"role": "user", "content": "[interrupted] never mind"},
]
MINTED_REASONING: list[dict[str, Any]] = [
    {"role": "user", "content": "hi"},
    {"type": "reasoning", "summary": [{"type": "summary_text", "text": "Greeting back."}]},
    {"role": "assistant", "content": "Hello!"},
]
ANTHROPIC_IDS: list[dict[str, Any]] = [
    {
        "type": "function_call",
        "id": "fc_toolu_01A9",
        "call_id": "toolu_01A9",
        "name": "Read",
        "arguments": '{"path": "a.py"}',
    },
    {"type": "function_call_output", "call_id": "toolu_01A9", "output": "x = 1"},
]
GEMINI_IDS: list[dict[str, Any]] = [
    {
        "type": "function_call",
        "call_id": f"call_abc__thought__{GEMINI}",
        "name": "f",
        "arguments": "{}",
    },
    {"type": "function_call_output", "call_id": f"call_abc__thought__{GEMINI}", "output": "ok"},
]
ODD: list[dict[str, Any]] = [
    {
        "role": "user",
        "content": [
            {"type": "input_text", "text": "see", "cache_control": {"type": "ephemeral"}},
            {
                "type": "input_image",
                "image_url": "data:image/png;base64,iVBORw0KGgo=",
                "detail": "low",
            },
            {"type": "input_image", "image_url": "https://example.com/a.png"},
            {"type": "input_image", "file_id": "file-1", "detail": "auto"},
            {"type": "input_file", "file_id": "file-2"},
        ],
    },
    {"type": "custom_tool_call", "call_id": "call_p", "name": "apply_patch", "input": "*** Begin"},
    {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"query": "q"}},
    {"type": "item_reference", "id": "rs_9"},
    {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "refusal", "refusal": "I can't."}],
    },
    {"type": "custom_tool_call_output", "call_id": "call_p", "output": "Done!"},
    {"type": "item_reference", "id": "msg_0"},
    {"type": "brand_new_item", "payload": [1, {"a": None}]},
    {"role": "system", "content": [{"type": "input_image", "image_url": "https://x/y.png"}]},
    {
        "type": "function_call_output",
        "id": "fco_1",
        "status": "completed",
        "call_id": "call_q",
        "output": [
            {"type": "input_text", "text": "chart:"},
            {"type": "input_image", "image_url": "https://example.com/c.png"},
        ],
    },
    {"type": "mcp_approval_request", "id": "mcpr_1", "name": "t", "arguments": "{}"},
]
TWO_ITEMS: list[dict[str, Any]] = [
    {"role": "user", "content": "two answers"},
    {
        "type": "message",
        "role": "assistant",
        "id": "msg_1",
        "content": [{"type": "output_text", "text": "a"}, {"type": "output_text", "text": "b"}],
    },
    {
        "type": "message",
        "role": "assistant",
        "id": "msg_2",
        "content": [{"type": "output_text", "text": "c"}],
    },
    {"role": "assistant", "content": "d"},
    {"role": "assistant", "content": [{"type": "output_text", "text": "e"}]},
]

SAMPLES: dict[str, tuple[Any, Any]] = {
    "codex": (CODEX, "You are Codex, a coding agent."),
    "interrupted": (INTERRUPTED, None),
    "minted_reasoning": (MINTED_REASONING, None),
    "anthropic_ids": (ANTHROPIC_IDS, None),
    "gemini_ids": (GEMINI_IDS, None),
    "string_input": ("What is 2+2?", "Answer briefly."),
    "empty_string": ("", ""),
    "odd_items": (ODD, [{"role": "developer", "content": "from a prompt"}]),
    "item_boundaries": (TWO_ITEMS, None),
    "nothing": ([], None),
}


@pytest.mark.parametrize("name", list(SAMPLES))
def test_a_sample_is_written_back_exactly(name: str) -> None:
    items, instructions = SAMPLES[name]
    before = copy.deepcopy((items, instructions))
    context = from_responses(items, instructions)
    assert to_responses(context) == (items, instructions)
    assert (items, instructions) == before
    assert context_from_json(context_to_json(context)) == context


@pytest.mark.parametrize("name", list(SAMPLES))
def test_the_rules_read_the_chat_form_of_every_message(name: str) -> None:
    for index, message in enumerate(from_responses(*SAMPLES[name]).messages):
        read_facts(encode_message(message), index, PLAN)


def test_a_codex_session_reads_as_the_neutral_model() -> None:
    context = from_responses(CODEX, "You are Codex, a coding agent.")
    assert context.system_prompt == "You are Codex, a coding agent."
    kinds = [type(m).__name__ for m in context.messages]
    assert kinds == [
        "SystemMessage",
        "UserMessage",
        "AssistantMessage",
        "ToolResultMessage",
        "AssistantMessage",
        "UserMessage",
    ]
    developer = context.messages[0]
    assert isinstance(developer, SystemMessage) and developer.role == "developer"
    assert developer.extra == {"type": "message"}
    turn = context.messages[2]
    assert isinstance(turn, AssistantMessage) and turn.content_form == "null"
    thinking, call = turn.content
    assert isinstance(thinking, ThinkingContent)
    assert (thinking.thinking, thinking.signature, thinking.origin) == (
        "**Running the tests**",
        ENCRYPTED,
        "reasoning_items",
    )
    assert thinking.extra["id"] == "rs_68a1"
    assert isinstance(call, ToolCall)
    assert (call.id, call.item_id, call.name) == ("call_Xk2", "fc_68a2", "shell")
    assert call.arguments == {"command": ["pytest", "-q"]}
    assert call.raw_arguments == '{"command":["pytest","-q"]}'
    assert call.item_extra == {"status": "completed"}
    result = context.messages[3]
    assert isinstance(result, ToolResultMessage) and result.tool_call_id == "call_Xk2"
    assert result.text() == "1 failed, 3 passed"
    answer = context.messages[4]
    assert isinstance(answer, AssistantMessage)
    (text,) = answer.content
    assert isinstance(text, TextContent) and text.text == "The test expects UTC."
    assert text.item == {"type": "message", "id": "msg_68a3", "status": "completed"}
    assert set(text.extra) == {"annotations", "logprobs"}


def test_the_rules_see_the_calls_and_results() -> None:
    context = from_responses(CODEX)
    facts = [read_facts(encode_message(m), i, PLAN) for i, m in enumerate(context.messages)]
    assert facts[2].calls == (("call_Xk2", "call_Xk2", "call_Xk2"),)
    assert facts[3].result == "call_Xk2"


def test_a_gemini_id_is_split_as_the_chat_shape_splits_it() -> None:
    context = from_responses(GEMINI_IDS)
    turn, result = context.messages
    assert isinstance(turn, AssistantMessage) and isinstance(result, ToolResultMessage)
    (call,) = turn.content
    assert isinstance(call, ToolCall)
    assert (call.id, call.thought_signature, call.signature_sites) == ("call_abc", GEMINI, ("id",))
    assert (result.tool_call_id, result.thought_signature, result.signature_in_id) == (
        "call_abc",
        GEMINI,
        True,
    )


def test_an_anthropic_call_keeps_its_item_id_apart() -> None:
    turn = from_responses(ANTHROPIC_IDS).messages[0]
    assert isinstance(turn, AssistantMessage)
    (call,) = turn.content
    assert isinstance(call, ToolCall)
    assert (call.id, call.item_id, call.extra) == ("toolu_01A9", "fc_toolu_01A9", {})
    assert encode_message(turn)["tool_calls"][0]["id"] == "toolu_01A9"


def test_item_boundaries_travel_on_the_text_blocks() -> None:
    turn = from_responses(TWO_ITEMS).messages[1]
    assert isinstance(turn, AssistantMessage)
    texts = [b for b in turn.content if isinstance(b, TextContent)]
    assert [b.text for b in texts] == ["a", "b", "c", "d", "e"]
    assert [b.item for b in texts] == [
        {"type": "message", "id": "msg_1"},
        None,
        {"type": "message", "id": "msg_2"},
        {},
        {},
    ]
    assert [b.item_as_string for b in texts] == [False, False, False, True, False]


def test_what_the_model_does_not_interpret_is_kept_on_its_side() -> None:
    context = from_responses(ODD)
    user, turn, held, after, unknown, system, result, request = context.messages
    assert isinstance(user, UserMessage)
    assert [type(b) for b in user.content] == [
        TextContent,
        ImageContent,
        ImageContent,
        OpaqueContent,
        OpaqueContent,
    ]
    image = user.content[1]
    assert isinstance(image, ImageContent)
    assert (image.mime_type, image.data, image.detail) == ("image/png", "iVBORw0KGgo=", "low")
    # The call items, the reference after them and the refusal: one assistant turn.
    assert isinstance(turn, AssistantMessage)
    assert [b.part["type"] for b in turn.content if isinstance(b, OpaqueContent)] == [
        "custom_tool_call",
        "web_search_call",
        "item_reference",
        "message",
    ]
    # The output of an opaque call is not a result the rules would pair (and drop).
    assert isinstance(held, UserMessage) and held.extra == {"type": "custom_tool_call_output"}
    # A reference after a user-side item stays on the user side.
    assert isinstance(after, UserMessage) and after.extra == {"type": "item_reference"}
    assert isinstance(unknown, UserMessage) and unknown.extra == {"type": "brand_new_item"}
    assert isinstance(system, SystemMessage) and isinstance(system.content[0], OpaqueContent)
    assert isinstance(result, ToolResultMessage) and result.extra == {
        "id": "fco_1",
        "status": "completed",
    }
    assert isinstance(request, AssistantMessage)


def test_a_string_input_stays_a_string_while_it_is_one_message() -> None:
    context = from_responses("What is 2+2?", "Answer briefly.")
    assert context.input_as_string and context.system_prompt == "Answer briefly."
    (message,) = context.messages
    assert isinstance(message, UserMessage) and message.content_form == "string"
    grown = context.model_copy(
        update={"messages": (*context.messages, AssistantMessage(content=(TextContent(text="4"),)))}
    )
    items, _ = to_responses(grown)
    assert items == [
        {"role": "user", "content": "What is 2+2?"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "4"}]},
    ]


def test_a_short_form_list_is_not_read_as_a_string_input() -> None:
    items = [{"role": "user", "content": "hi"}]
    assert not from_responses(items).input_as_string
    assert to_responses(from_responses(items)) == (items, None)


def test_a_developer_item_is_never_the_instructions() -> None:
    items = [{"role": "developer", "content": "be terse"}, {"role": "user", "content": "hi"}]
    context = from_responses(items)
    assert context.system_prompt is None and isinstance(context.messages[0], SystemMessage)
    assert to_responses(context) == (items, None)


def test_instructions_given_as_a_list_are_kept_apart() -> None:
    listed = [{"role": "developer", "content": [{"type": "input_text", "text": "x"}]}]
    context = from_responses("hi", listed)
    assert context.instruction_items == listed and context.system_prompt is None
    assert context.instruction_items is not listed
    assert to_responses(context) == ("hi", listed)


def test_pydantic_items_are_read_by_their_dump() -> None:
    class FunctionCall(BaseModel):
        type: str = "function_call"
        call_id: str
        name: str
        arguments: str

    item = FunctionCall(call_id="call_1", name="f", arguments="{}")
    context = from_responses([item])
    assert to_responses(context) == ([item.model_dump()], None)


def test_messages_from_elsewhere_are_written_as_valid_items() -> None:
    """What a rule writes (a synthesized result), or another shape read, as Responses items."""
    context = Context(
        system_prompt="sys",
        messages=(
            UserMessage(content=(TextContent(text="go"),)),
            AssistantMessage(
                content=(
                    ThinkingContent(
                        thinking="plan", signature="c2ln", origin="thinking_blocks", extra={"x": 1}
                    ),
                    ThinkingContent(thinking="", signature="EmwK", redacted=True),
                    TextContent(text="a", text_signature="dGV4dA=="),
                    TextContent(text="b"),
                    ToolCall(id="call_1", name="f", arguments={"q": 1}, extra={"index": 0}),
                    ToolCall(
                        id="call_2", name="g", thought_signature="Z2Vt", signature_sites=("id",)
                    ),
                    OpaqueContent(part={"no_type": True}),
                ),
                provider="anthropic",
                api="anthropic-messages",
            ),
            ToolResultMessage(
                tool_call_id="call_1",
                content=(TextContent(text=NO_RESULT_TEXT),),
                is_error=True,
                synthesized=True,
            ),
            ToolResultMessage(tool_call_id="call_2", content=(), content_form="null"),
        ),
    )
    items, instructions = to_responses(context)
    assert instructions == "sys"
    assert items == [
        {"role": "user", "content": "go"},
        {
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": "plan"}],
            "encrypted_content": "c2ln",
        },
        {"type": "reasoning", "summary": [], "encrypted_content": "EmwK"},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "a"}, {"type": "output_text", "text": "b"}],
        },
        {"type": "function_call", "call_id": "call_1", "name": "f", "arguments": '{"q": 1}'},
        {
            "type": "function_call",
            "call_id": "call_2__thought__Z2Vt",
            "name": "g",
            "arguments": "{}",
        },
        {"type": "message", "role": "assistant", "content": [{"no_type": True}]},
        {"type": "function_call_output", "call_id": "call_1", "output": NO_RESULT_TEXT},
        {"type": "function_call_output", "call_id": "call_2", "output": ""},
    ]
    assert to_responses(from_responses(items, instructions)) == (items, instructions)


def test_a_rules_edits_are_written() -> None:
    """A renamed call (its item id kept), thinking turned into text, a result readdressed."""
    context = from_responses(CODEX)
    turn = context.messages[2]
    result = context.messages[3]
    assert isinstance(turn, AssistantMessage) and isinstance(result, ToolResultMessage)
    thinking, call = turn.content
    assert isinstance(thinking, ThinkingContent) and isinstance(call, ToolCall)
    edited = (
        turn.model_copy(
            update={
                "content": (
                    TextContent(text=thinking.thinking),
                    call.model_copy(update={"id": "c1"}),
                )
            }
        ),
        result.model_copy(update={"tool_call_id": "c1"}),
    )
    messages = (*context.messages[:2], *edited, *context.messages[4:])
    items, _ = to_responses(context.model_copy(update={"messages": messages}))
    assert items[2:5] == [
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "**Running the tests**"}],
        },
        {**CODEX[3], "call_id": "c1"},
        {**CODEX[4], "call_id": "c1"},
    ]


def test_the_rules_answer_an_interrupted_call_in_this_shape() -> None:
    result = transform_messages(from_responses(INTERRUPTED), RESPONSES)
    assert [c.kind for c in result.report.changes] == ["tool_pairing"]
    items, _ = to_responses(result.context)
    assert items == [
        *INTERRUPTED[:2],
        {"type": "function_call_output", "call_id": "call_1", "output": NO_RESULT_TEXT},
        INTERRUPTED[2],
    ]


def test_a_context_with_both_kinds_of_instructions_is_refused() -> None:
    with pytest.raises(ConfigurationError):
        to_responses(Context(system_prompt="a", instruction_items=[]))


@pytest.mark.parametrize(
    ("input_", "instructions"), [(None, None), ({"role": "user"}, None), ([], 5), ([], {"a": 1})]
)
def test_a_request_of_no_known_form_is_refused(input_: Any, instructions: Any) -> None:
    with pytest.raises(ConfigurationError):
        from_responses(input_, instructions)


@pytest.mark.parametrize(
    ("items", "index", "field"),
    [
        (["text"], 0, ""),
        ([{"content": "x"}], 0, "type"),
        ([{"type": 5}], 0, "type"),
        ([{"type": "message", "content": "x"}], 0, "role"),
        ([{"role": "tool", "content": "x"}], 0, "role"),
        ([{"role": "user"}], 0, "content"),
        ([{"role": "user", "content": 3}], 0, "content"),
        ([{"role": "user", "content": ["x"]}], 0, "content[0]"),
        (
            [{"role": "user", "content": [{"type": "input_image", "image_url": {"url": "u"}}]}],
            0,
            "content[0].image_url",
        ),
        ([{"role": "assistant", "content": None}], 0, "content"),
        ([{"role": "assistant", "content": [7]}], 0, "content[0]"),
        ([{"type": "reasoning", "summary": "thought"}], 0, "summary"),
        ([{"type": "reasoning", "encrypted_content": "x"}], 0, "summary"),
        ([{"type": "reasoning", "summary": [{"type": "summary_text"}]}], 0, "summary"),
        ([{"type": "function_call", "name": "f", "arguments": "{}"}], 0, "call_id"),
        ([{"type": "function_call", "call_id": 1, "name": "f", "arguments": "{}"}], 0, "call_id"),
        ([{"type": "function_call", "call_id": "c", "arguments": "{}"}], 0, "name"),
        ([{"type": "function_call", "call_id": "c", "name": "f"}], 0, "arguments"),
        ([{"type": "function_call", "call_id": "c", "name": "f", "arguments": {}}], 0, "arguments"),
        (
            [{"role": "user", "content": "a"}, {"type": "function_call_output", "call_id": "c"}],
            1,
            "output",
        ),
        ([{"type": "function_call_output", "call_id": "c", "output": 5}], 0, "output"),
        ([{"type": "function_call_output", "call_id": "c", "output": [3]}], 0, "output[0]"),
        ([{"type": "function_call_output", "output": "x"}], 0, "call_id"),
    ],
)
def test_unreadable_input_is_named(items: list[Any], index: int, field: str) -> None:
    with pytest.raises(InvalidMessageError) as caught:
        from_responses(items)
    assert (caught.value.index, caught.value.field) == (index, field)


# -- generated requests: every item type, short and typed messages, parts of either side,
# -- odd and unknown items and parts, unknown keys everywhere ------------------------------

call_ids = st.one_of(
    st.from_regex(r"call_[A-Za-z0-9]{4,10}", fullmatch=True),
    st.from_regex(r"toolu_01[A-Za-z0-9]{4,8}", fullmatch=True),
    st.from_regex(r"call_[a-z0-9]{4}__thought__[A-Za-z0-9+/]{4,8}={0,2}", fullmatch=True),
    st.just(""),
)
item_ids = st.one_of(
    call_ids.map(lambda c: f"fc_{c}"), st.from_regex(r"(fc|rs|msg|ws)_[a-f0-9]{6}", fullmatch=True)
)
statuses = st.sampled_from(["completed", "in_progress", "incomplete"])
image_urls = st.one_of(
    st.from_regex(r"data:image/(png|jpeg);base64,[A-Za-z0-9+/]{0,12}={0,2}", fullmatch=True),
    st.from_regex(r"https://example\.com/[a-z]{1,6}\.png", fullmatch=True),
    st.just("data:text/plain,hello"),
)


def input_text() -> st.SearchStrategy[Any]:
    return text.flatmap(
        lambda t: with_optional({"type": "input_text", "text": t}, cache_control=cache_control)
    )


def input_image() -> st.SearchStrategy[Any]:
    by_url = image_urls.flatmap(
        lambda u: with_optional(
            {"type": "input_image", "image_url": u},
            detail=st.sampled_from(["auto", "low", "high"]),
            file_id=text,
            cache_control=cache_control,
        )
    )
    by_file = text.flatmap(
        lambda f: with_optional(
            {"type": "input_image", "file_id": f}, image_url=st.none(), detail=text
        )
    )
    return st.one_of(by_url, by_file)


def odd_part() -> st.SearchStrategy[Any]:
    return st.one_of(
        text.map(lambda f: {"type": "input_file", "file_id": f}),
        text.map(lambda d: {"type": "input_audio", "input_audio": {"data": d, "format": "wav"}}),
        text.map(lambda t: {"type": "output_text", "text": t}),
        json_values.map(lambda v: {"type": "brand_new_part", "payload": v}),
        json_values.map(lambda v: {"no_type": v}),
    )


user_parts = st.one_of(input_text(), input_image(), odd_part())


def content(parts: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(text, st.lists(parts, max_size=3))


@st.composite
def message_item(draw: st.DrawFn, role: str) -> dict[str, Any]:
    # System and developer messages get the same parts: their images stay opaque.
    base: dict[str, Any] = {"role": role, "content": draw(content(user_parts))}
    if draw(st.booleans()):
        base = {"type": "message", **base}
    return draw(with_optional(base, id=item_ids, status=statuses))


def output_text() -> st.SearchStrategy[Any]:
    return text.flatmap(
        lambda t: with_optional(
            {"type": "output_text", "text": t},
            annotations=st.lists(json_values, max_size=2),
            logprobs=st.just([]),
            cache_control=cache_control,
        )
    )


@st.composite
def assistant_item(draw: st.DrawFn) -> dict[str, Any]:
    refusal = text.map(lambda t: {"type": "refusal", "refusal": t})
    body = draw(
        st.one_of(
            text,
            st.lists(output_text(), min_size=1, max_size=3),
            st.lists(st.one_of(output_text(), refusal), max_size=3),
        )
    )
    base: dict[str, Any] = {"role": "assistant", "content": body}
    if draw(st.booleans()):
        base = {"type": "message", **base}
    return draw(with_optional(base, id=item_ids, status=statuses))


@st.composite
def reasoning_item(draw: st.DrawFn) -> dict[str, Any]:
    summary = st.lists(text.map(lambda t: {"type": "summary_text", "text": t}), max_size=2)
    reasoning = st.lists(text.map(lambda t: {"type": "reasoning_text", "text": t}), max_size=2)
    return draw(
        with_optional(
            {"type": "reasoning", "summary": draw(summary)},
            id=item_ids,
            content=reasoning | st.none(),
            encrypted_content=text | st.none(),
            status=statuses,
        )
    )


def arguments() -> st.SearchStrategy[str]:
    objects = st.dictionaries(text, json_values, max_size=3)
    return st.one_of(
        objects.map(json.dumps),
        objects.map(lambda o: json.dumps(o, separators=(",", ":"))),
        objects.map(json.dumps).flatmap(lambda s: st.integers(0, len(s)).map(lambda n: s[:n])),
        text,
    )


@st.composite
def function_call(draw: st.DrawFn) -> dict[str, Any]:
    base = {
        "type": "function_call",
        "call_id": draw(call_ids),
        "name": draw(text),
        "arguments": draw(arguments()),
    }
    return draw(with_optional(base, id=item_ids | st.none(), status=statuses))


@st.composite
def function_call_output(draw: st.DrawFn) -> dict[str, Any]:
    base = {
        "type": "function_call_output",
        "call_id": draw(call_ids),
        "output": draw(content(user_parts)),
    }
    return draw(with_optional(base, id=item_ids, status=statuses, cache_control=cache_control))


def other_item() -> st.SearchStrategy[Any]:
    calls = st.sampled_from(
        [
            "custom_tool_call",
            "web_search_call",
            "file_search_call",
            "computer_call",
            "local_shell_call",
            "mcp_call",
            "image_generation_call",
            "code_interpreter_call",
            "brand_new_call",
            "mcp_list_tools",
            "mcp_approval_request",
        ]
    )
    outputs = st.sampled_from(
        [
            "custom_tool_call_output",
            "computer_call_output",
            "local_shell_call_output",
            "mcp_approval_response",
            "brand_new_call_output",
        ]
    )
    neither = st.sampled_from(["item_reference", "brand_new_item", "compaction"])
    return st.builds(
        lambda kind, i, v: {"type": kind, "id": i, "payload": v},
        calls | outputs | neither,
        item_ids,
        json_values,
    )


items = st.lists(
    st.one_of(
        message_item("user"),
        message_item("system"),
        message_item("developer"),
        assistant_item(),
        reasoning_item(),
        function_call(),
        function_call_output(),
        other_item(),
    ),
    max_size=8,
)
requests = st.tuples(
    text | items,
    st.none() | text | st.lists(message_item("developer"), max_size=2),
)


@SETTINGS
@given(requests)
def test_round_trip_is_exact(request: tuple[Any, Any]) -> None:
    before = copy.deepcopy(request)
    assert to_responses(from_responses(*request)) == request
    assert request == before


@SETTINGS
@given(requests)
def test_the_neutral_model_serialises_exactly(request: tuple[Any, Any]) -> None:
    context = from_responses(*request)
    assert context_from_json(context_to_json(context)) == context


@SETTINGS
@given(requests)
def test_the_written_request_is_not_the_models_own(request: tuple[Any, Any]) -> None:
    """Changing what was written changes neither the neutral model nor the next write."""
    context = from_responses(*request)
    written = to_responses(context)
    again = copy.deepcopy(written)
    _scramble(written)
    assert to_responses(context) == again


def _scramble(value: Any) -> None:
    if isinstance(value, dict):
        for key in list(value):
            _scramble(value[key])
        value["scrambled"] = True
    elif isinstance(value, list | tuple):
        for entry in value:
            _scramble(entry)


@SETTINGS
@given(requests)
def test_the_chat_form_of_each_message_reads_back_to_valid_items(
    request: tuple[Any, Any],
) -> None:
    """The rules read each message's chat form, and the integration reads back a changed one.

    Read back from its chat form, a user, system or result message writes the very items
    it was read from. An assistant turn keeps every item, but not what only this shape
    has a place for: the chat form lists reasoning first, then text and the items the
    model does not interpret, then calls; text items lose their keys and boundaries, and
    calls their item ids. What it writes is read again to the same request.
    """
    context = from_responses(*request)
    for index, message in enumerate(context.messages):
        chat = encode_message(message)
        read_facts(chat, index, PLAN)
        back = decode_message(chat, index)
        written = to_responses(Context(messages=(back,)))[0]
        original = to_responses(Context(messages=(message,)))[0]
        if isinstance(message, AssistantMessage):
            assert _by_kind(written) == _by_kind(original)
        else:
            assert written == original
        assert to_responses(from_responses(written)) == (written, None)


def _by_kind(written: Any) -> tuple[list[Any], list[Any], list[Any]]:
    """An assistant turn's items as its chat form keeps them: reasoning, content, calls."""
    reasoning: list[Any] = []
    parts: list[Any] = []
    calls: list[Any] = []
    for item in written:
        if item.get("type") == "reasoning":
            reasoning.append(item)
        elif item.get("type") == "function_call":
            calls.append((item["call_id"], item["name"], item["arguments"]))
        elif item.get("role") == "assistant" and _text_parts(item["content"]):
            body = item["content"]
            parts += [{"type": "output_text", "text": body}] if isinstance(body, str) else body
        else:
            parts.append(item)
    return reasoning, parts, calls


def _text_parts(body: Any) -> bool:
    if isinstance(body, str):
        return True
    return bool(body) and all(
        isinstance(p, dict) and p.get("type") == "output_text" and isinstance(p.get("text"), str)
        for p in body
    )


@SETTINGS
@given(transcripts)
def test_a_context_from_another_shape_writes_a_fixed_point(messages: list[dict[str, Any]]) -> None:
    """Chat messages, read into the neutral model, are written as items read back alike."""
    written = to_responses(from_openai(messages))
    assert to_responses(from_responses(*written)) == written


@SETTINGS
@given(requests)
def test_what_the_rules_leave_is_written_as_a_fixed_point(request: tuple[Any, Any]) -> None:
    """Results synthesized, reasoning dropped or turned into text, ids renamed, turns merged.

    For the targets LiteLLM sends this shape to as it is (a call to any other is bridged
    to chat, where the chat shape's rules act).
    """
    context = from_responses(*request)
    for target in (RESPONSES, AZURE_RESPONSES):
        written = to_responses(transform_messages(context, target).context)
        assert to_responses(from_responses(*written)) == written


def test_a_signature_in_a_calls_provider_fields_is_read_as_in_chat() -> None:
    """LiteLLM leaves a Gemini signature on a call item: the rules judge it as in chat."""
    signature = "CiQBVKhc7mO4GPk1KLSHYaBB4gK1dAAYD4sAj1x0qQ4rFO0+iRoK"
    item = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "f",
        "arguments": "{}",
        "provider_specific_fields": {"thought_signature": signature},
    }
    for psf in ({"thought_signature": signature}, None, {"other": 1}):
        given = [{**item, "provider_specific_fields": psf}]
        assert to_responses(from_responses(given)) == (given, None)
    call = from_responses([item]).messages[0].content[0]  # type: ignore[union-attr]
    assert isinstance(call, ToolCall)
    assert call.thought_signature == signature
    assert call.signature_sites == ("provider_specific_fields",)


@SETTINGS
@given(requests)
def test_the_quick_chat_form_is_the_decoded_ones(request: tuple[Any, Any]) -> None:
    """Where the request is read straight from the wire, its chat form equals the decoded
    one's encoding, and the request written back is the same either way."""
    items, instructions = request
    chat = read_as_chat(items, instructions)
    if chat.spans:
        long_way = from_responses(items, instructions)
        assert chat.messages == [encode_message(m) for m in long_way.messages]
    assert chat.written(chat.messages) == (items, instructions)


def test_a_codex_sessions_plain_items_are_read_without_decoding() -> None:
    items = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]},
        {"role": "user", "content": "short form"},
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA"},
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_1",
            "name": "f",
            "arguments": "{}",
        },
        {"type": "function_call_output", "call_id": "call_1", "output": "ok"},
        {
            "type": "message",
            "role": "assistant",
            "id": "msg_1",
            "status": "completed",
            "content": [{"type": "output_text", "text": "done", "annotations": []}],
        },
    ]
    chat = read_as_chat(items, "Be brief.")
    assert not chat.read and len(chat.spans) == 5
    assert chat.written(chat.messages) == (items, "Be brief.")


def test_a_recalled_request_writes_back_a_message_without_a_seen_as_it_came() -> None:
    """Read with a recall, each message's items are found by its ``Seen``; a message
    written back without one (a trimmed request hands on none, an unreadable message has
    none) is found by its identity, and goes back as the caller's items all the same."""
    items = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]},
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA"},
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f",
         "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_1", "output": "ok"},
        {"type": "message", "role": "assistant", "id": "msg_1", "status": "completed",
         "content": [{"type": "output_text", "text": "done", "annotations": []}]},
    ]  # fmt: skip
    recall = Recall()
    recall.keep(recall.align("responses input", items), items)  # its beginning glimpsed
    recall.keep(recall.align("responses input", items), items)
    aligned = recall.align("responses input", items)
    assert aligned.seen is not None
    chat = read_as_chat(items, "Be brief.", aligned.seen, aligned.matched)
    assert chat.seen is not None and not chat.read and not chat.spans  # found by Seen
    seen: list[Seen | None] = list(chat.seen)
    assert chat.written(chat.messages, seen) == (items, "Be brief.")
    assert chat.written(chat.messages) == (items, "Be brief.")
    for at in range(len(seen)):
        assert chat.written(chat.messages, [*seen[:at], None, *seen[at + 1 :]]) == (
            items,
            "Be brief.",
        )
    # Read without one (the recall kept no record of the items): the chat messages may
    # still get a Seen of their own, aligned as chat messages; found by identity alike.
    unseen = read_as_chat(items, "Be brief.")
    others: list[Seen | None] = [Seen() for _ in unseen.messages]
    assert unseen.written(unseen.messages, others) == (items, "Be brief.")


def _codex_call(draw: Any, turn: int) -> dict[str, Any]:
    """A function call item as Codex sends one, or a Gemini session bridged by LiteLLM."""
    call_id = f"call_{turn}"
    # A Gemini session bridged by LiteLLM: the signature in the id, its provider
    # fields, or both (disagreeing, now and then).
    signed = draw(st.sampled_from([None, None, "id", "fields", "both", "disagree"]))
    if signed in ("id", "both", "disagree"):
        call_id = f"{call_id}__thought__c2ln"
    call: dict[str, Any] = {"type": "function_call", "call_id": call_id}
    call |= {"name": "shell", "arguments": draw(st.sampled_from(["{}", '{"a": 1}', "{bad"]))}
    if draw(st.booleans()):
        call["id"] = f"fc_{turn}"
    if draw(st.booleans()):
        call["status"] = "completed"
    if signed in ("fields", "both", "disagree"):
        other = "b3RoZXI=" if signed == "disagree" else "c2ln"
        call["provider_specific_fields"] = {"thought_signature": other}
    if draw(st.integers(0, 9)) == 0:  # almost: what the quick way leaves to the long one
        call["provider_specific_fields"] = draw(st.sampled_from(["c2ln", None, [1]]))
    return call


def test_written_back_the_messages_no_rule_changed_are_the_callers_own_items() -> None:
    signed = "call_1__thought__c2ln"
    items: list[dict[str, Any]] = [
        {"role": "user", "content": "go"},
        {"type": "reasoning", "summary": [{"type": "summary_text", "text": "plan"}]},
        {"type": "function_call", "call_id": signed, "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": signed, "output": "ok"},
        {"role": "user", "content": "next"},
    ]
    chat = read_as_chat(items, None)
    assert not chat.read  # a Gemini session's signed calls are read the quick way
    changed = [dict(m) if m["role"] == "tool" else m for m in chat.messages]
    changed[2]["content"] = "changed"
    written, _ = chat.written(changed)
    assert isinstance(written, list) and len(written) == len(items)
    kept = [0, 1, 2, 4]
    assert all(written[i] is items[i] for i in kept)
    assert written[3] == {**items[3], "output": "changed"} and written[3] is not items[3]


@st.composite
def codex_sessions(draw: Any) -> tuple[list[dict[str, Any]], Any]:
    """Codex's own items (the quick way's), and now and then one that is not quite."""
    items: list[dict[str, Any]] = []
    for turn in range(draw(st.integers(1, 4))):
        role = draw(st.sampled_from(["user", "user", "developer"]))
        text = draw(st.sampled_from(["go", "", "ünïcode"]))
        if draw(st.booleans()):
            items.append({"role": role, "content": text})
        else:
            parts = [{"type": "input_text", "text": text}]
            items.append({"type": "message", "role": role, "content": parts})
        reasoning: dict[str, Any] = {"type": "reasoning"}
        if draw(st.booleans()):
            reasoning["id"] = f"rs_{turn}"
        summary = draw(st.sampled_from([[], ["plan"], ["a", "b"]]))
        reasoning["summary"] = [{"type": "summary_text", "text": t} for t in summary]
        if draw(st.booleans()):
            reasoning["encrypted_content"] = "gAAAA" + str(turn)
        items.append(reasoning)
        call = _codex_call(draw, turn)
        call_id = call["call_id"]
        items.append(call)
        output: dict[str, Any] = {"type": "function_call_output", "call_id": call_id}
        output["output"] = draw(st.sampled_from(["ok", ""]))
        if draw(st.booleans()):
            output["status"] = "completed"
        items.append(output)
        if draw(st.booleans()):
            part = {"type": "output_text", "text": "done", "annotations": []}
            message = {"type": "message", "role": "assistant", "content": [part]}
            if draw(st.booleans()):
                message |= {"id": f"msg_{turn}", "status": "completed"}
            items.append(message)
    return items, draw(
        st.sampled_from([None, "Be brief.", [{"role": "developer", "content": "x"}]])
    )


@SETTINGS
@given(codex_sessions())
def test_the_quick_way_reads_codex_sessions_as_the_long_way_does(
    request: tuple[list[dict[str, Any]], Any],
) -> None:
    items, instructions = request
    chat = read_as_chat(items, instructions)
    long_way = from_responses(items, instructions)
    assert chat.messages == [encode_message(m) for m in long_way.messages]
    assert chat.written(chat.messages) == (items, instructions)  # the caller's own items
    assert to_responses(long_way) == (items, instructions)  # what writing them would give
    rewritten = [dict(m) for m in chat.messages]  # as if a rule wrote each anew
    assert read_as_chat(*chat.written(rewritten)).messages == chat.messages
