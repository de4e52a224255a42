"""The Anthropic Messages shape: read into the neutral model and written back exactly."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings

from litellm_hygiene import (
    AssistantMessage,
    Context,
    InvalidMessageError,
    OpaqueMessage,
    SystemMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    context_from_json,
    context_to_json,
    sanitize_anthropic_messages,
)
from litellm_hygiene._anthropic import from_anthropic, to_anthropic
from litellm_hygiene._anthropic._chat import read_as_chat
from litellm_hygiene._anthropic._decode import ABSENT
from litellm_hygiene._openai._decode import decode_message
from litellm_hygiene._openai._encode import encode_message
from tests.support.anthropic_strategies import anthropic_requests

SETTINGS = settings(max_examples=300, deadline=None)
SIGNATURE = "EqQBCkgIAxABGAIiQL0t1cJmUMqzNvJ0MPLKbFQyB7gqEpOPh0hY0y4xeA=="

CLAUDE_CODE: list[dict[str, Any]] = [
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "<system-reminder>ctx</system-reminder>"},
            {"type": "text", "text": "Fix the test", "cache_control": {"type": "ephemeral"}},
        ],
    },
    {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "Run it first.", "signature": SIGNATURE},
            {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va"},
            {"type": "text", "text": "Running the tests."},
            {"type": "tool_use", "id": "toolu_01A", "name": "Bash", "input": {"command": "pytest"}},
            {"type": "tool_use", "id": "toolu_01B", "name": "Read", "input": {"path": "a.py"}},
        ],
    },
    {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01A", "content": "1 failed"},
            {
                "type": "tool_result",
                "tool_use_id": "toolu_01B",
                "content": [{"type": "text", "text": "def f(): ..."}],
                "is_error": False,
            },
            {"type": "text", "text": "also check b.py"},
        ],
    },
    {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "toolu_01C", "name": "Read", "input": {}}],
    },
    {"role": "user", "content": [{"type": "text", "text": "[Request interrupted by user]"}]},
]
SYSTEM = [{"type": "text", "text": "You are Claude Code.", "cache_control": {"type": "ephemeral"}}]


def test_a_claude_code_session_reads_as_the_neutral_model() -> None:
    messages = from_anthropic(CLAUDE_CODE, SYSTEM).messages
    kinds = [type(m).__name__ for m in messages]
    assert kinds == [
        "SystemMessage",
        "UserMessage",
        "AssistantMessage",
        "ToolResultMessage",
        "ToolResultMessage",
        "UserMessage",
        "AssistantMessage",
        "UserMessage",
    ]
    turn = messages[2]
    assert isinstance(turn, AssistantMessage)
    thinking, redacted, text, first, second = turn.content
    assert isinstance(thinking, ThinkingContent) and thinking.signature == SIGNATURE
    assert isinstance(redacted, ThinkingContent) and redacted.redacted
    assert redacted.signature == "EmwKAhgBEgy3va"
    assert isinstance(text, TextContent) and text.text == "Running the tests."
    assert isinstance(first, ToolCall) and first.arguments == {"command": "pytest"}
    assert isinstance(second, ToolCall) and second.id == "toolu_01B"
    results = messages[3:6]
    assert [getattr(m, "joined", None) for m in results] == [False, True, True]
    assert isinstance(results[0], ToolResultMessage) and results[0].tool_call_id == "toolu_01A"


def test_a_claude_code_session_is_written_back_exactly() -> None:
    before = copy.deepcopy(CLAUDE_CODE)
    assert to_anthropic(from_anthropic(CLAUDE_CODE, SYSTEM)) == (CLAUDE_CODE, SYSTEM)
    assert CLAUDE_CODE == before


def test_a_gemini_id_is_split_as_the_chat_shape_splits_it() -> None:
    gemini = "call_abc__thought__CiQBVKhc7mO4GPk1KLSHYaBB"
    messages = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": gemini, "name": "f", "input": {}}],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": gemini, "content": "ok"}],
        },
    ]
    context = from_anthropic(messages)
    call = context.messages[1].content[0]  # type: ignore[union-attr]
    assert isinstance(call, ToolCall)
    assert (call.id, call.thought_signature, call.signature_sites) == (
        "call_abc",
        "CiQBVKhc7mO4GPk1KLSHYaBB",
        ("id",),
    )
    result = context.messages[2]
    assert isinstance(result, ToolResultMessage) and result.signature_in_id
    assert to_anthropic(context) == (messages, None)


def test_a_string_system_prompt_stays_a_string() -> None:
    context = from_anthropic([{"role": "user", "content": "hi"}], "Be brief.")
    assert isinstance(context.messages[0], SystemMessage)
    assert to_anthropic(context)[1] == "Be brief."


def test_no_system_prompt_gives_none() -> None:
    assert to_anthropic(from_anthropic([{"role": "user", "content": "hi"}], None))[1] is None


def test_results_hygiene_writes_join_the_results_before_them() -> None:
    """A synthesized result (``joined`` unset) goes in the user message with the others."""
    context = Context(
        messages=(
            UserMessage(content=(TextContent(text="go"),)),
            AssistantMessage(
                content=(ToolCall(id="toolu_1", name="f"), ToolCall(id="toolu_2", name="f"))
            ),
            ToolResultMessage(tool_call_id="toolu_1", content=(TextContent(text="a"),)),
            ToolResultMessage(
                tool_call_id="toolu_2", content=(TextContent(text="none"),), synthesized=True
            ),
            UserMessage(content=(TextContent(text="next"),)),
        )
    )
    messages, _ = to_anthropic(context)
    assert messages[2] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a"},
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "none"},
            {"type": "text", "text": "next"},
        ],
    }
    assert len(messages) == 3
    again = from_anthropic(messages)
    assert to_anthropic(again) == (messages, None)


@pytest.mark.parametrize(
    ("messages", "index", "field"),
    [
        ([{"role": "critic", "content": "x"}], 0, "role"),
        ([{"role": "system", "content": 3}], 0, "content"),
        (["text"], 0, ""),
        ([{"role": "user"}], 0, "content"),
        ([{"role": "user", "content": 3}], 0, "content"),
        ([{"role": "user", "content": [{"type": "text"}]}], 0, "content[0].text"),
        ([{"role": "user", "content": ["x"]}], 0, "content[0]"),
        (
            [{"role": "assistant", "content": [{"type": "tool_use", "name": "f", "input": {}}]}],
            0,
            "content[0].id",
        ),
        (
            [
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "t", "name": "f", "input": "x"}],
                }
            ],
            0,
            "content[0].input",
        ),
        (
            [
                {"role": "user", "content": "a"},
                {"role": "assistant", "content": [{"type": "thinking"}]},
            ],
            1,
            "content[0].thinking",
        ),
        (
            [{"role": "user", "content": [{"type": "tool_result", "content": "x"}]}],
            0,
            "content[0].tool_use_id",
        ),
        (
            [
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "t", "content": 1}],
                }
            ],
            0,
            "content[0].content",
        ),
    ],
)
def test_unreadable_input_is_named(messages: list[Any], index: int, field: str) -> None:
    with pytest.raises(InvalidMessageError) as caught:
        from_anthropic(messages)
    assert (caught.value.index, caught.value.field) == (index, field)


def test_unreadable_messages_are_kept_as_they_came_when_asked() -> None:
    """Given a list to note errors in, the reader keeps each unreadable message at its
    place, and the writer puts it back exactly."""
    odd = [{"role": "critic", "content": "x"}, "text", {"role": "user", "content": 3}]
    messages = [{"role": "user", "content": "a"}, odd[0], {"role": "assistant", "content": "b"}]
    messages += [odd[1], {"role": "user", "content": "c"}, odd[2]]
    unread: list[InvalidMessageError] = []
    context = from_anthropic(messages, unread=unread)
    kept = [m for m in context.messages if isinstance(m, OpaqueMessage)]
    assert [m.raw for m in kept] == odd
    assert all(m.shape == "anthropic-messages" for m in kept)
    assert [(e.index, e.field) for e in unread] == [(1, "role"), (3, ""), (5, "content")]
    assert to_anthropic(context) == (messages, None)


def test_a_system_message_inside_messages_is_read_at_its_place() -> None:
    """Claude Code's mid-conversation system messages: a ``SystemMessage`` where it
    stands, written back there; only those before the first turn are ``system``."""
    messages = [
        {"role": "user", "content": "a"},
        {"role": "system", "content": "Available agent types: ..."},
        {"role": "assistant", "content": "b"},
        {"role": "user", "content": "c"},
        {
            "role": "system",
            "content": [{"type": "text", "text": "d", "cache_control": {"type": "ephemeral"}}],
        },
    ]
    context = from_anthropic(messages, "top")
    kinds = [m.kind for m in context.messages]
    assert kinds == ["system", "user", "system", "assistant", "user", "system"]
    assert to_anthropic(context) == (messages, "top")


def test_an_unreadable_system_prompt_is_named() -> None:
    with pytest.raises(InvalidMessageError) as caught:
        from_anthropic([{"role": "user", "content": "x"}], 7)
    assert (caught.value.index, caught.value.field) == (-1, "system")


@SETTINGS
@given(anthropic_requests())
def test_round_trip_is_exact(request: tuple[list[dict[str, Any]], Any]) -> None:
    """Exact, but for system messages before the first turn: Claude takes those only in
    ``system``, where the writer puts them (after ``system``'s own blocks)."""
    messages, system = request
    before = copy.deepcopy(request)
    lead = next((n for n, m in enumerate(messages) if m["role"] != "system"), len(messages))
    written, written_system = to_anthropic(from_anthropic(messages, system))
    assert written == messages[lead:]
    if not lead:
        assert written_system == system
    else:
        texts = [m["content"] for m in messages[:lead]]
        joined = json.dumps(written_system)
        assert all(json.dumps(t)[1:-1] in joined for t in texts if isinstance(t, str))
    assert request == before


@SETTINGS
@given(anthropic_requests())
def test_the_neutral_model_serialises_exactly(request: tuple[list[dict[str, Any]], Any]) -> None:
    context = from_anthropic(*request)
    assert context_from_json(context_to_json(context)) == context


@SETTINGS
@given(anthropic_requests())
def test_the_chat_form_of_each_message_reads_back_to_the_same_request(
    request: tuple[list[dict[str, Any]], Any],
) -> None:
    """The integration hands the rules each message's chat form; read back, it is the same.

    ``joined`` is the one thing the chat form does not carry (the integration keeps the
    message it read for each one no rule changed): without it, what is written is the
    request as Anthropic reads it, results and then the user's text in one message. Nor
    does it hold text after a turn's calls: a turn a rule rewrites is written with its
    calls last, as Claude writes them (so the property is held on such turns).
    """
    messages, system = _calls_last(request[0]), request[1]
    context = from_anthropic(messages, system)
    back = [decode_message(encode_message(m), i) for i, m in enumerate(context.messages)]
    unjoined = Context(messages=tuple(_unjoined(m) for m in context.messages))
    written = to_anthropic(Context(messages=tuple(back)))
    assert written == to_anthropic(unjoined)
    if not messages or messages[0]["role"] != "system":  # else lifted into ``system``
        assert written[1] == system
    assert to_anthropic(from_anthropic(*written)) == written


def _unjoined(message: Any) -> Any:
    if isinstance(message, UserMessage | ToolResultMessage):
        return message.model_copy(update={"joined": None})
    return message


def _calls_last(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for message in messages:
        content = message["content"]
        if message["role"] == "assistant" and isinstance(content, list):
            calls = [b for b in content if b["type"] == "tool_use"]
            rest = [b for b in content if b["type"] != "tool_use"]
            message = {**message, "content": rest + calls}
        out.append(message)
    return out


def test_a_system_message_between_messages_joins_the_system_prompt() -> None:
    """Hygiene's fitting adds a note as a system message: Anthropic has only ``system``."""
    note = SystemMessage(content=(TextContent(text="[earlier turns left out]"),))
    context = from_anthropic([{"role": "user", "content": "hi"}], "Be brief.")
    messages = (context.messages[0], note, *context.messages[1:])
    written, system = to_anthropic(Context(messages=messages))
    assert written == [{"role": "user", "content": "hi"}]
    assert system == [
        {"type": "text", "text": "Be brief."},
        {"type": "text", "text": "[earlier turns left out]"},
    ]


@SETTINGS
@given(anthropic_requests())
def test_the_quick_chat_form_is_the_decoded_ones(request: tuple[list[dict[str, Any]], Any]) -> None:
    """The chat form written straight from the wire equals the decoded one's encoding,
    and whatever the rules change, the request written back is the same either way."""
    messages, system = request
    quick = read_as_chat(messages, ABSENT if system is None else system)
    long_way = [encode_message(m) for m in from_anthropic(messages, system).messages]
    assert quick.messages == long_way
    if messages and messages[0]["role"] == "system":  # lifted into ``system``
        assert quick.written(quick.messages) == to_anthropic(from_anthropic(messages, system))
    else:
        assert quick.written(quick.messages) == (messages, system)
    # Chat messages a rule rewrote (read back without their place) and ones it kept.
    rewritten = [dict(m) if n % 2 else m for n, m in enumerate(quick.messages)]
    assert quick.written(rewritten) == to_anthropic(
        Context(
            messages=tuple(
                m if n % 2 == 0 else decode_message(encode_message(m), n)
                for n, m in enumerate(from_anthropic(messages, system).messages)
            )
        )
    )


def test_claude_codes_plain_messages_are_read_without_decoding() -> None:
    chat = read_as_chat(CLAUDE_CODE, SYSTEM)
    assert not chat.read  # every message went the quick way
    assert len(chat.origin) == len(chat.messages)


def test_a_system_message_first_in_messages_goes_into_system() -> None:
    """``messages.0: use the top-level 'system' parameter for the initial system prompt``."""
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "a"}]
    result = sanitize_anthropic_messages(messages, "anthropic/claude-opus-4-8", system="top")
    assert result.messages == messages[1:]
    assert result.system == [{"type": "text", "text": "top"}, {"type": "text", "text": "Be brief."}]
    assert result.report.counts() == {"system_placement": 1}
    again = sanitize_anthropic_messages(
        result.messages, "anthropic/claude-opus-4-8", system=result.system
    )
    assert not again.report.changed


_CALL = {
    "role": "assistant",
    "content": [{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}],
}
_RESULT = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1"}]}
_SYSTEM = {"role": "system", "content": "Use the new tools."}
_NOTE = {"type": "text", "text": "System note: Use the new tools."}


@pytest.mark.parametrize(
    ("messages", "model", "sent"),
    [
        # Opus 4.8 takes it right after a user turn (a tool result is one): as it came.
        (
            [{"role": "user", "content": "a"}, _SYSTEM, {"role": "assistant", "content": "b"}],
            "anthropic/claude-opus-4-8",
            [{"role": "user", "content": "a"}, _SYSTEM, {"role": "assistant", "content": "b"}],
        ),
        (
            [{"role": "user", "content": "a"}, _CALL, _RESULT, _SYSTEM],
            "anthropic/claude-opus-4-8",
            None,
        ),
        # Between a call and its results: after them (tool_pairing moves the results up
        # first), still a system message.
        (
            [{"role": "user", "content": "a"}, _CALL, _SYSTEM, _RESULT],
            "anthropic/claude-opus-4-8",
            [{"role": "user", "content": "a"}, _CALL, _RESULT, _SYSTEM],
        ),
        # After an assistant turn: a user note at its place.
        (
            [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}, _SYSTEM],
            "anthropic/claude-opus-4-8",
            [
                {"role": "user", "content": "a"},
                {"role": "assistant", "content": "b"},
                {"role": "user", "content": _NOTE["text"]},
            ],
        ),
        # A model that takes none: a note, joined with the user turn before it.
        (
            [{"role": "user", "content": [{"type": "text", "text": "a"}]}, _SYSTEM],
            "anthropic/claude-sonnet-4-5",
            [{"role": "user", "content": [{"type": "text", "text": "a"}, _NOTE]}],
        ),
    ],
)
def test_a_system_message_goes_where_the_model_takes_it(
    messages: list[Any], model: str, sent: list[Any] | None
) -> None:
    result = sanitize_anthropic_messages(messages, model)
    assert result.messages == (messages if sent is None else sent)
    assert result.report.changed is (sent is not None and sent != messages)
    again = sanitize_anthropic_messages(result.messages, model, system=result.system)
    assert not again.report.changed
