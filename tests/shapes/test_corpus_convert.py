"""Real traffic: assistant messages LiteLLM parsed from recorded provider responses.

Each response in ``../shared/corpus/cassettes`` that LiteLLM can parse (see
``tests/support/corpus.py``) must convert to the neutral model with the right blocks and
provenance, and back to exactly the dict LiteLLM produced.
"""

from __future__ import annotations

import pytest

from litellm_hygiene import (
    AssistantMessage,
    Context,
    ThinkingContent,
    ToolCall,
    assistant_from_response,
    to_openai,
)
from litellm_hygiene._messages import Api
from litellm_hygiene._providers import api_for
from tests.support.corpus import CorpusResponse, litellm_responses, require_corpus


def _responses() -> list[CorpusResponse]:
    try:
        require_corpus()
    except pytest.skip.Exception:
        return []
    return litellm_responses()


RESPONSES = _responses()
IDS = [r.label.rsplit("/", 1)[-1] for r in RESPONSES]


def _convert(recorded: CorpusResponse) -> AssistantMessage:
    api: Api | None = "openai-responses" if recorded.upstream == "openai-responses" else None
    return assistant_from_response(recorded.response, api=api)


@pytest.fixture(autouse=True)
def _corpus() -> None:
    require_corpus()


@pytest.mark.parametrize("recorded", RESPONSES, ids=IDS)
def test_message_round_trips_exactly(recorded: CorpusResponse) -> None:
    message = _convert(recorded)
    assert to_openai(Context(messages=(message,))) == [recorded.message]


@pytest.mark.parametrize("recorded", RESPONSES, ids=IDS)
def test_provenance_and_usage(recorded: CorpusResponse) -> None:
    message = _convert(recorded)
    assert message.provider == recorded.provider
    assert message.model == recorded.response.model
    expected_api = (
        "openai-responses"
        if recorded.upstream == "openai-responses"
        else api_for(recorded.provider, recorded.litellm_model.split("/", 1)[-1])
    )
    assert message.api == expected_api
    usage = getattr(recorded.response, "usage")  # noqa: B009 - untyped LiteLLM attribute
    assert message.usage is not None
    assert message.usage.input + message.usage.cache_read + message.usage.cache_write == (
        usage.prompt_tokens
    )
    assert message.usage.output == usage.completion_tokens


@pytest.mark.parametrize("recorded", RESPONSES, ids=IDS)
def test_blocks_match_what_litellm_returned(recorded: CorpusResponse) -> None:
    message = _convert(recorded)
    wire = recorded.message
    thinking = message.thinking()
    calls = message.tool_calls() or []
    assert len(calls) == len(wire.get("tool_calls") or [])
    for block, wire_block in zip(
        [b for b in thinking if b.origin == "thinking_blocks"],
        wire.get("thinking_blocks") or [],
        strict=True,
    ):
        if wire_block["type"] == "redacted_thinking":
            assert block.redacted and block.signature == wire_block["data"]
        else:
            assert block.thinking == wire_block["thinking"]
            assert block.signature == wire_block.get("signature")
    if wire.get("reasoning_items"):
        items = [b for b in thinking if b.origin == "reasoning_items"]
        assert [b.signature for b in items] == [
            i.get("encrypted_content") for i in wire["reasoning_items"]
        ]
    if wire.get("reasoning_content") is not None and not wire.get("thinking_blocks"):
        if not wire.get("reasoning_items"):
            assert [b.thinking for b in thinking] == [wire["reasoning_content"]]
    if recorded.response.choices[0].finish_reason == "tool_calls":
        assert message.stop_reason == "toolUse"


def _features(feature: str) -> list[CorpusResponse]:
    return [r for r in RESPONSES if feature in r.features]


def test_gemini_signatures_are_lifted_from_ids() -> None:
    gemini = [r for r in _features("tool_call_id_thought_suffix") if r.provider == "gemini"]
    assert gemini, "corpus lacks Gemini tool calls with thought signatures"
    models = set()
    for recorded in gemini:
        calls = _convert(recorded).tool_calls() or []
        signed = [c for c in calls if c.thought_signature]
        assert signed and all("__thought__" not in c.id for c in calls)
        assert all("id" in c.signature_sites for c in signed)
        models.add(recorded.model.split("-")[1])
    assert {"2.5", "3"} <= models


def test_anthropic_signed_redacted_and_parallel_calls_are_present() -> None:
    anthropic = [_convert(r) for r in RESPONSES if r.provider == "anthropic"]
    blocks = [b for m in anthropic for b in m.content]
    assert any(isinstance(b, ThinkingContent) and b.signature and not b.redacted for b in blocks)
    assert any(isinstance(b, ThinkingContent) and b.redacted for b in blocks)
    assert any(len(m.tool_calls() or []) > 1 for m in anthropic)
    assert all(b.id.startswith(("toolu_", "srvtoolu_")) for b in blocks if isinstance(b, ToolCall))


def test_mistral_ids_are_nine_alphanumerics() -> None:
    mistral = [_convert(r) for r in RESPONSES if r.provider == "mistral"]
    calls = [c for m in mistral for c in m.tool_calls() or []]
    assert calls and all(len(c.id) == 9 and c.id.isalnum() for c in calls)
