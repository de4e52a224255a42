"""The stand-in's reply builders answer in the exact shape of real provider responses.

The cassettes in ``cassettes/`` were recorded against the local stand-in
(:mod:`litellm_hygiene._standin`), so they are only as faithful as its reply builders. This module
compares, per wire format, a builder response with one or more *real* successful responses
recorded by others (``../shared/corpus``, loaded with :mod:`tests.support.corpus`).

What is compared is the *shape*: every path of the JSON document (object keys, and list
items matched by their ``type`` tag, or by their kind key where items are untagged, such as
Gemini parts and Bedrock content blocks) with the set of JSON value types seen there.

* A path a real response has and the builder's lacks is a failure.
* A path the builder has that no real response of that kind has is a failure.
* A value type the builder uses at a path where no real response uses it is a failure.

Exceptions are listed explicitly, with the reason, in :data:`ALLOWANCES` (a difference that
is provably optional or version-dependent) and :data:`OPAQUE` (request-defined content whose
inner keys are not part of the provider's shape, such as tool-call arguments). A test checks
that every allowance is still needed, so the tables cannot go stale.

Streams are compared too: an Anthropic stream's events, kind by kind, with real recorded
streams; a Responses stream (the corpus has none recorded) event by event with the event
models of OpenAI's SDK (generated from OpenAI's API specification) and of LiteLLM's own
stream parser. Both must carry the non-streamed body's answer, and an error is never
streamed.
"""

from __future__ import annotations

import json
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from litellm.llms.openai.responses.transformation import OpenAIResponsesAPIConfig
from openai.types.responses import ResponseStreamEvent
from pydantic import BaseModel, ValidationError

from litellm_hygiene._standin import (
    anthropic,
    bedrock,
    deepseek,
    gemini,
    mistral,
    openai_chat,
    openai_responses,
)
from litellm_hygiene._standin._reply import Json
from litellm_hygiene._standin._stream import streamed
from litellm_hygiene._standin.rules import WireProblem
from litellm_hygiene._standin.strict import rejection
from tests.support.corpus import load_interactions
from tests.support.streams import anthropic_content

Shape = dict[str, frozenset[str]]
"""``path -> JSON value types seen there`` (``object``, ``array``, ``string``, ...)."""

# --------------------------------------------------------------------------------------------
# The real responses each builder is compared with (cassette path relative to the corpus'
# cassettes/ folder, interaction index). All are non-streaming HTTP 200 bodies.
# --------------------------------------------------------------------------------------------

_PAI = "pydantic-ai/tests/models/cassettes/"
ANTHROPIC_REAL = (
    # claude-sonnet-4: thinking (signature) + text + tool_use
    (_PAI + "test_anthropic/test_anthropic_tool_with_thinking.yaml", 0),
    # claude-sonnet-4-5: thinking (signature) + text
    (_PAI + "test_anthropic/test_anthropic_model_thinking_part.yaml", 0),
    # claude-haiku-4-5: text + four parallel tool_use blocks
    (_PAI + "test_anthropic/test_multiple_parallel_tool_calls.yaml", 0),
)
GEMINI_25_CALL_REAL = (
    # gemini-2.5-pro: functionCall with thoughtSignature
    (_PAI + "test_google/test_google_prompted_output_with_tools.yaml", 0),
)
GEMINI_25_THOUGHT_REAL = (
    # gemini-2.5-pro: thought summary + signed text
    (_PAI + "test_google/test_google_model_thinking_part_from_other_model.yaml", 1),
)
GEMINI_3_CALL_REAL = (
    # gemini-3-pro-preview: functionCall with thoughtSignature
    (_PAI + "test_google/test_thinking_with_tool_calls_from_other_model.yaml", 2),
    # gemini-3 (vercel/ai raw response fixture): functionCall with thoughtSignature
    ("vercel-ai/packages/google/src/__fixtures__/google-tool-call-gemini3.json", 0),
)
GEMINI_3_THOUGHT_REAL = (
    # gemini-3-pro-preview: thought summary + signed text
    (_PAI + "test_google/test_google_model_thinking_part.yaml", 0),
)
OPENAI_CHAT_REAL = (
    # gpt-4o-2024-08-06: tool_calls, content null
    (_PAI + "test_openai/test_openai_tool_output.yaml", 0),
)
OPENAI_RESPONSES_REAL = (
    # gpt-5-2025-08-07: reasoning (encrypted_content, summaries) + function_call
    (_PAI + "test_openai_responses/test_openai_responses_thinking_with_tool_calls.yaml", 0),
    # gpt-5-2025-08-07: the follow-up answer, a message item with output_text
    (_PAI + "test_openai_responses/test_openai_responses_thinking_with_tool_calls.yaml", 1),
)
MISTRAL_REAL = (
    # mistral-large-latest: tool_calls with a 9-char id and an index
    (_PAI + "test_tool_choice_matrix/test_tool_choice_matrix[auto-mistral].yaml", 0),
    # mistral-small-latest (vercel/ai raw response fixture): tool_calls
    ("vercel-ai/packages/mistral/src/__fixtures__/mistral-tool-call.json", 0),
)
BEDROCK_REAL = (
    # Claude 3.7 on Bedrock Converse: reasoningContent (signature) + text + toolUse
    (_PAI + "test_bedrock/test_bedrock_anthropic_tool_with_thinking.yaml", 0),
    # Claude Sonnet 4 on Bedrock Converse: reasoningContent (signature) + text
    (_PAI + "test_bedrock/test_bedrock_model_thinking_part_from_other_model.yaml", 1),
)
DEEPSEEK_REAL = (
    # deepseek-v4-flash: reasoning_content + content + one tool call
    (_PAI + "test_deepseek/test_deepseek_deferred_capability_with_thinking.yaml", 0),
    # ... two parallel tool calls
    (_PAI + "test_deepseek/test_deepseek_deferred_capability_with_thinking.yaml", 1),
    # ... the final answer: reasoning_content + content, no tool calls
    (_PAI + "test_deepseek/test_deepseek_deferred_capability_with_thinking.yaml", 2),
)
ANTHROPIC_STREAM_REAL = (
    # claude-sonnet-4 streamed: thinking (thinking_delta, signature_delta) + text
    (_PAI + "test_anthropic/test_anthropic_model_thinking_part_stream.yaml", 0),
    # claude-haiku-4-5 streamed (2026): thinking + tool_use (input_json_delta)
    (
        "llm-anthropic/tests/cassettes/test_anthropic/"
        "test_fixed_version_tool_chain_with_thinking_display_regression.yaml",
        0,
    ),
)

# --------------------------------------------------------------------------------------------
# Exceptions, each with its reason
# --------------------------------------------------------------------------------------------

OPAQUE: dict[str, str] = {
    "$.content[tool_use].input": "tool arguments: keys come from the request's tool schema",
    "$.candidates[*].content.parts[functionCall].functionCall.args": (
        "tool arguments: keys come from the request's tool schema"
    ),
    "$.output.message.content[toolUse].toolUse.input": (
        "tool arguments: keys come from the request's tool schema"
    ),
    "$.tools": (
        "Responses API echo of the request's `tools` (the stand-in does not echo requests; "
        "LiteLLM's Responses bridge ignores it)"
    ),
}
"""Paths whose *contents* are request-defined: only the value type at the path is compared."""

ALLOWANCES: dict[tuple[str, str], str] = {
    ("gemini-2.5 functionCall", "$.usageMetadata.serviceTier"): (
        "only the newest Gemini recording (gemini-2.5-pro, 2026) has it; the gemini-2.5-pro "
        "thought recording and all three Gemini 3 recordings (incl. vercel/ai's 2026 "
        "fixture) do not, so the API returns it only on some versions/tiers"
    ),
    ("openai-responses reasoning+function_call", "$.instructions"): (
        "echo of the request's `instructions`: a string only when the request sent one "
        "(null otherwise); the real recordings sent a system prompt"
    ),
    **{
        ("anthropic stream thinking+text+tool_use", path): (
            "only the 2026 claude-haiku-4-5 stream has it; the claude-sonnet-4 stream and every "
            "non-streamed recording the stand-in's message is compared with (above) do not, so "
            "the API returns it only on newer versions"
        )
        for path in (
            "$.message_start[message_start].message.stop_details",
            "$.message_delta[message_delta].delta.stop_details",
            "$.message_delta[message_delta].usage.output_tokens_details",
            "$.message_delta[message_delta].usage.output_tokens_details.thinking_tokens",
            "$.content_block_start/tool_use[content_block_start].content_block.caller",
            "$.content_block_start/tool_use[content_block_start].content_block.caller.type",
        )
    },
}
"""``(case, path) -> reason`` for a difference that is provably optional/version-dependent."""

# --------------------------------------------------------------------------------------------
# Shapes
# --------------------------------------------------------------------------------------------

_KIND_KEYS = ("functionCall", "functionResponse", "reasoningContent", "toolUse", "text")
"""Kind keys of untagged list items (Gemini parts, Bedrock content blocks), by priority."""


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    raise TypeError(f"not a JSON value: {value!r}")


def _kind(item: object) -> str:
    """How a list item is matched: its ``type`` tag, else its kind key, else ``*``."""
    if not isinstance(item, Mapping):
        return "*"
    tag = item.get("type")
    if isinstance(tag, str):
        return tag
    if item.get("thought") is True:
        return "thought"
    return next((key for key in _KIND_KEYS if key in item), "*")


def shape_of(value: object, path: str = "$") -> Shape:
    """Every path of ``value`` with the JSON types found there."""
    found: dict[str, set[str]] = {}

    def walk(node: object, at: str) -> None:
        found.setdefault(at, set()).add(_json_type(node))
        if at in OPAQUE:
            return
        if isinstance(node, Mapping):
            for key, child in node.items():
                walk(child, f"{at}.{key}")
        elif isinstance(node, list):
            for item in node:
                walk(item, f"{at}[{_kind(item)}]")

    walk(value, path)
    return {p: frozenset(types) for p, types in found.items()}


def stream_document(events: Iterable[Json]) -> Json:
    """A stream's events as one document, a list per kind, so kinds are compared alike.

    A kind is the event's ``type``, and for a content block's start and deltas also the
    block's or the delta's own ``type`` (``content_block_delta/input_json_delta``).
    """
    document: dict[str, list[Json]] = {}
    for event in events:
        kind = event["type"]
        inner = {"content_block_start": "content_block", "content_block_delta": "delta"}
        if kind in inner:
            kind += "/" + event[inner[kind]]["type"]
        document.setdefault(kind, []).append(event)
    return document


@dataclass(frozen=True)
class Difference:
    path: str
    problem: str

    def __str__(self) -> str:
        return f"{self.path}: {self.problem}"


def differences(builder: Shape, reals: Mapping[str, Shape]) -> list[Difference]:
    """Every way ``builder`` departs from the real shapes (``label -> shape``)."""
    out: list[Difference] = []
    union: dict[str, set[str]] = {}
    for label, real in reals.items():
        for path, types in real.items():
            union.setdefault(path, set()).update(types)
            if path not in builder:
                out.append(Difference(path, f"real response has it, builder lacks it ({label})"))
    for path, types in builder.items():
        if path not in union:
            out.append(Difference(path, "builder has it, no real response does"))
        elif extra := sorted(types - union[path]):
            out.append(
                Difference(path, f"builder uses type {extra}, real ones {sorted(union[path])}")
            )
    return out


# --------------------------------------------------------------------------------------------
# Builder responses, one per case, with the same kinds of parts as the real ones
# --------------------------------------------------------------------------------------------


def _anthropic() -> Json:
    return anthropic.message(
        anthropic.thinking("I should look up the weather in Paris.", seed="shape"),
        anthropic.text("Let me check the weather."),
        anthropic.tool_use("get_weather", {"city": "Paris"}, seed="shape"),
        model="claude-sonnet-4-20250514",
        seed="shape",
    ).body


def _gemini_call(model_version: str) -> Callable[[], Json]:
    def build() -> Json:
        return gemini.generate_content(
            gemini.function_call("get_weather", {"city": "Paris"}, seed="shape"),
            model_version=model_version,
            seed="shape",
        ).body

    return build


def _gemini_thought(model_version: str) -> Callable[[], Json]:
    def build() -> Json:
        return gemini.generate_content(
            gemini.thought("**Checking the weather**\n\nParis first."),
            gemini.text("It is 18°C in Paris.", seed="shape"),
            model_version=model_version,
            seed="shape",
        ).body

    return build


def _openai_chat() -> Json:
    return openai_chat.completion(
        None,
        model="gpt-4o-2024-08-06",
        seed="shape",
        tool_calls=[openai_chat.tool_call("get_weather", {"city": "Paris"}, seed="shape")],
    ).body


def _openai_responses() -> Json:
    return openai_responses.response(
        openai_responses.reasoning(["**Weather**\n\nLook it up."], seed="shape"),
        openai_responses.function_call("get_weather", {"city": "Paris"}, seed="shape"),
        openai_responses.message("It is 18°C in Paris.", seed="shape"),
        model="gpt-5-2025-08-07",
        seed="shape",
    ).body


def _mistral() -> Json:
    return mistral.completion(
        "",
        model="mistral-large-latest",
        seed="shape",
        tool_calls=[mistral.tool_call("get_weather", {"city": "Paris"}, seed="shape")],
    ).body


def _bedrock() -> Json:
    return bedrock.converse(
        bedrock.reasoning("I should look up the weather in Paris.", seed="shape"),
        bedrock.text("Let me check the weather."),
        bedrock.tool_use("get_weather", {"city": "Paris"}, seed="shape"),
    ).body


def _deepseek() -> Json:
    return deepseek.completion(
        "Let me check the weather.",
        model="deepseek-reasoner",
        seed="shape",
        reasoning_content="I should look up the weather in Paris.",
        tool_calls=[deepseek.tool_call("get_weather", {"city": "Paris"}, seed="shape")],
    ).body


def _anthropic_stream() -> Json:
    return stream_document(anthropic.stream_events(_anthropic()))


@dataclass(frozen=True)
class Case:
    name: str
    build: Callable[[], Json]
    real: tuple[tuple[str, int], ...]
    stream: bool = False


CASES = (
    Case("anthropic thinking+tool_use", _anthropic, ANTHROPIC_REAL),
    Case("gemini-2.5 functionCall", _gemini_call("gemini-2.5-pro"), GEMINI_25_CALL_REAL),
    Case(
        "gemini-2.5 thought+signed text", _gemini_thought("gemini-2.5-pro"), GEMINI_25_THOUGHT_REAL
    ),
    Case("gemini-3 functionCall", _gemini_call("gemini-3-pro-preview"), GEMINI_3_CALL_REAL),
    Case(
        "gemini-3 thought+signed text",
        _gemini_thought("gemini-3-pro-preview"),
        GEMINI_3_THOUGHT_REAL,
    ),
    Case("openai-chat tool_calls", _openai_chat, OPENAI_CHAT_REAL),
    Case("openai-responses reasoning+function_call", _openai_responses, OPENAI_RESPONSES_REAL),
    Case("mistral tool_calls", _mistral, MISTRAL_REAL),
    Case("bedrock reasoningContent+toolUse", _bedrock, BEDROCK_REAL),
    Case("deepseek reasoning_content+tool_calls", _deepseek, DEEPSEEK_REAL),
    Case(
        "anthropic stream thinking+text+tool_use",
        _anthropic_stream,
        ANTHROPIC_STREAM_REAL,
        stream=True,
    ),
)


def _real_body(cassette: str, index: int) -> Any:
    """One recorded response body (skips the calling test when the corpus is absent)."""
    interaction = load_interactions(cassette)[index]
    response = interaction.response
    assert response.status == 200, f"{cassette}#{index}: status {response.status}"
    assert response.stream_format is None, f"{cassette}#{index}: a stream, not a body"
    assert isinstance(response.json, dict), f"{cassette}#{index}: not a JSON object"
    return response.json


def _real_stream(cassette: str, index: int) -> Json:
    """One recorded stream, as :func:`stream_document` (skips as :func:`_real_body`)."""
    response = load_interactions(cassette)[index].response
    assert response.status == 200, f"{cassette}#{index}: status {response.status}"
    assert response.sse_text is not None, f"{cassette}#{index}: a body, not a stream"
    lines = response.sse_text.splitlines()
    return stream_document(json.loads(line[5:]) for line in lines if line.startswith("data:"))


def _real(case: Case, cassette: str, index: int) -> Any:
    return _real_stream(cassette, index) if case.stream else _real_body(cassette, index)


def _raw_differences(case: Case) -> list[Difference]:
    reals = {f"{c}#{i}": shape_of(_real(case, c, i)) for c, i in case.real}
    return differences(shape_of(case.build()), reals)


# --------------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_builder_has_the_shape_of_real_responses(case: Case) -> None:
    found = [d for d in _raw_differences(case) if (case.name, d.path) not in ALLOWANCES]
    assert not found, f"{case.name}: builder shape departs from the real responses:\n" + "\n".join(
        f"  {d}" for d in found
    )


def test_every_allowance_is_needed() -> None:
    """Each :data:`ALLOWANCES` entry matches a real difference (so none is stale)."""
    by_name = {c.name: c for c in CASES}
    unknown = [name for name, _ in ALLOWANCES if name not in by_name]
    assert not unknown, f"allowances for unknown cases: {unknown}"
    stale = [
        (name, path)
        for name, path in ALLOWANCES
        if path not in {d.path for d in _raw_differences(by_name[name])}
    ]
    assert not stale, f"allowances no longer needed: {stale}"


def test_every_opaque_path_occurs() -> None:
    """Each :data:`OPAQUE` path is present in some real response compared here."""
    seen: set[str] = set()
    for case in CASES:
        for cassette, index in case.real:
            seen.update(shape_of(_real(case, cassette, index)))
    assert not set(OPAQUE) - seen, f"opaque paths matching nothing: {set(OPAQUE) - seen}"


def test_shape_matches_tagged_list_items_by_kind() -> None:
    """Self-check of the comparison (runs without the corpus)."""
    real = shape_of({"content": [{"type": "text", "text": "a"}, {"type": "tool_use", "id": "x"}]})
    builder = shape_of({"content": [{"type": "text", "text": "b", "extra": 1}]})
    found = {str(d) for d in differences(builder, {"real": real})}
    assert found == {
        "$.content[tool_use]: real response has it, builder lacks it (real)",
        "$.content[tool_use].type: real response has it, builder lacks it (real)",
        "$.content[tool_use].id: real response has it, builder lacks it (real)",
        "$.content[text].extra: builder has it, no real response does",
    }
    gemini_parts = shape_of({"parts": [{"text": "t", "thought": True}, {"functionCall": {}}]})
    assert {"$.parts[thought].thought", "$.parts[functionCall].functionCall"} <= set(gemini_parts)
    typed = differences(shape_of({"a": None}), {"real": shape_of({"a": "s"})})
    assert [str(d) for d in typed] == ["$.a: builder uses type ['null'], real ones ['string']"]


# --------------------------------------------------------------------------------------------
# Streams: the same answer, in events each API's parsers read
# --------------------------------------------------------------------------------------------

_OPENAI_EVENTS: dict[str, type[BaseModel]] = {
    typing.get_args(model.model_fields["type"].annotation)[0]: model
    for model in typing.get_args(typing.get_args(ResponseStreamEvent)[0])
}
"""OpenAI's SDK's model of each Responses stream event, by its ``type``."""

_SDK_ONLY = ("response", "usage", "input_tokens_details", "cache_write_tokens")
"""A usage field OpenAI's SDK requires of a response; no recording in the corpus (2025)
has it, nor, following them, the stand-in's non-streamed body its streams carry."""


def test_an_anthropic_stream_carries_the_message() -> None:
    body = _anthropic()
    events = anthropic.stream_events(body)
    assert anthropic_content(events) == body["content"]
    start, stop = events[0]["message"], events[-2]
    assert {**start, "content": body["content"], "usage": body["usage"]} | stop["delta"] == body
    assert stop["usage"]["output_tokens"] == body["usage"]["output_tokens"]
    assert events[-1] == {"type": "message_stop"}


def test_a_responses_stream_carries_the_response() -> None:
    body = _openai_responses()
    events = openai_responses.stream_events(body)
    assert [event["sequence_number"] for event in events] == list(range(len(events)))
    last = {"type": "response.completed", "sequence_number": len(events) - 1, "response": body}
    assert events[-1] == last
    done = [e["item"] for e in events if e["type"] == "response.output_item.done"]
    assert done == body["output"]
    message, call = body["output"][2], body["output"][1]
    assert _joined(events, "response.output_text.delta") == message["content"][0]["text"]
    assert _joined(events, "response.function_call_arguments.delta") == call["arguments"]


@given(text=st.text(), thinking=st.text())
def test_a_stream_carries_any_text(text: str, thinking: str) -> None:
    body = anthropic.message(
        anthropic.thinking(thinking, seed="p"), anthropic.text(text), model="m", seed="p"
    ).body
    assert anthropic_content(anthropic.stream_events(body)) == body["content"]
    reply = openai_responses.response(openai_responses.message(text, seed="p"), model="m", seed="p")
    assert _joined(openai_responses.stream_events(reply.body), "response.output_text.delta") == text


def _joined(events: list[Json], kind: str) -> str:
    return "".join(event["delta"] for event in events if event["type"] == kind)


def test_a_responses_stream_has_the_documented_events() -> None:
    """Each event validates as OpenAI's SDK's model of it and as LiteLLM's, unforced."""
    for event in openai_responses.stream_events(_openai_responses()):
        try:
            _OPENAI_EVENTS[event["type"]].model_validate(event)
        except ValidationError as err:
            others = [e for e in err.errors() if e["loc"] != _SDK_ONLY]
            assert not others, f"{event['type']}: {others}"
        # LiteLLM falls back to an unvalidated model_construct: validate as it first tries.
        OpenAIResponsesAPIConfig.get_event_model_class(event["type"]).model_validate(event)


def test_an_error_is_never_streamed() -> None:
    """Both APIs check a request before they stream: a refusal is their JSON 400."""
    problem = WireProblem("unanswered_call", "unanswered", index=1, subject="toolu_01A")
    for api in ("anthropic-messages", "openai-responses"):
        error = rejection(api, [problem])
        assert streamed(error) is error
    ok = anthropic.message(anthropic.text("hi"), model="m", seed="e")
    assert streamed(ok).events is not None and streamed(streamed(ok)) == streamed(ok)
    assert streamed(ok).body == ok.body and b"event: message_stop" in b"".join(
        streamed(ok).frames()
    )
