"""Text signatures are kept only for the model that produced them (seed 000).

Gemini signs text parts as well as thinking and calls; LiteLLM keeps those signatures in
``provider_specific_fields.thought_signatures`` and the neutral model on each
``TextContent.text_signature``. Like a thinking or tool-call signature, one is opaque
provider metadata that only its own model can verify (another Gemini model answers
``Corrupted thought signature.``), so it is dropped for every other model and kept,
byte for byte, for the same one: through the neutral API, ``sanitize_messages`` and
``validate_messages`` alike.
"""

from __future__ import annotations

from typing import Any

import pytest

from litellm_hygiene import (
    STAMP_KEY,
    AssistantMessage,
    Context,
    TextContent,
    UserMessage,
    from_openai,
    resolve_target,
    sanitize_messages,
    to_openai,
    transform_messages,
    validate_messages,
)

SIG = "EqQBCkgIAxABGAIiQL0t1cJmUMqzNvJ0MPLKbFQyB7gqEpOPh0hY0y4xeA=="
SOURCE = "gemini/gemini-2.5-pro"
OTHERS = ("openai/gpt-4o", "anthropic/claude-sonnet-4-5", "gemini/gemini-2.5-flash")
"""Another provider with no use for it, another that rejects unknown fields, and another
Gemini model, which would try to verify it and fail."""

STAMP = {"provider": "gemini", "api": "gemini", "model": "gemini-2.5-pro"}


def _neutral(**provenance: Any) -> Context:
    """A question, Gemini's signed answer (built by hand: no provider fields), another."""
    answer = AssistantMessage(
        content=(TextContent(text="It is 4.", text_signature=SIG),), **provenance
    )
    return Context(
        messages=(
            UserMessage(content=(TextContent(text="2+2?"),)),
            answer,
            UserMessage(content=(TextContent(text="And 3+3?"),)),
        )
    )


def _wire(**extra: Any) -> list[dict[str, Any]]:
    """The same conversation as LiteLLM returned it; ``extra`` adds hygiene's stamp."""
    answer = {
        "role": "assistant",
        "content": "It is 4.",
        "provider_specific_fields": {"thought_signatures": [SIG]},
    }
    return [
        {"role": "user", "content": "2+2?"},
        answer | extra,
        {"role": "user", "content": "And 3+3?"},
    ]


def _text(context: Context) -> TextContent:
    answer = context.messages[1]
    assert isinstance(answer, AssistantMessage)
    (text,) = answer.content
    assert isinstance(text, TextContent)
    return text


def _signatures(message: dict[str, Any]) -> Any:
    return (message.get("provider_specific_fields") or {}).get("thought_signatures")


def test_a_hand_built_signed_text_is_written_on_the_wire() -> None:
    """The encoder writes a text signature even when the turn has no other provider fields."""
    wire = to_openai(_neutral())
    assert _signatures(wire[1]) == [SIG]
    assert _text(from_openai(wire)).text_signature == SIG


@pytest.mark.parametrize("model", OTHERS)
def test_neutral_text_signature_stripped_for_a_different_model(model: str) -> None:
    """alchemy's ``test_text_signature_stripped_for_different_model``, on the neutral API."""
    context = _neutral(provider="gemini", api="gemini", model="gemini-2.5-pro")
    result = transform_messages(context, resolve_target(model))
    assert _text(result.context) == TextContent(text="It is 4.")
    assert ("foreign_reasoning", 1, "text signature dropped") in [
        (c.kind, c.index, c.detail) for c in result.report.changes
    ]
    assert all(_signatures(m) is None for m in to_openai(result.context))


def test_neutral_text_signature_kept_for_the_model_that_made_it() -> None:
    context = _neutral(provider="gemini", api="gemini", model="gemini-2.5-pro")
    result = transform_messages(context, resolve_target(SOURCE))
    assert result.context is context
    assert result.report.changes == ()
    assert _signatures(to_openai(result.context)[1]) == [SIG]


def test_neutral_unstamped_turn_follows_the_source_model() -> None:
    """A turn with no provenance is the source's: foreign to another model, not to it."""
    source = resolve_target(SOURCE)
    dropped = transform_messages(_neutral(), resolve_target("openai/gpt-4o"), source=source)
    assert _text(dropped.context).text_signature is None
    kept = transform_messages(_neutral(), source, source=source)
    assert _text(kept.context).text_signature == SIG


@pytest.mark.parametrize("model", OTHERS)
def test_wire_text_signature_stripped_and_reported_for_a_different_model(model: str) -> None:
    messages = _wire(**{STAMP_KEY: STAMP})
    out = sanitize_messages(messages, model)
    assert all(_signatures(m) is None for m in out.messages)
    assert out.messages[1]["content"] == "It is 4."
    assert "foreign_reasoning" in {c.kind for c in out.report.changes}
    found = [
        (v.index, v.field)
        for v in validate_messages(messages, model)
        if v.code == "foreign_reasoning"
    ]
    assert found == [(1, "content[0]")]
    assert validate_messages(list(out.messages), model) == []


def test_wire_text_signature_kept_for_the_model_that_made_it() -> None:
    messages = _wire(**{STAMP_KEY: STAMP})
    out = sanitize_messages(messages, SOURCE)
    assert _signatures(out.messages[1]) == [SIG]
    assert "foreign_reasoning" not in {c.kind for c in out.report.changes}
    assert validate_messages(messages, SOURCE) == []


def test_wire_unstamped_turn_follows_the_source_model() -> None:
    messages = _wire()
    out = sanitize_messages(messages, "openai/gpt-4o", source_model=SOURCE)
    assert _signatures(out.messages[1]) is None
    kept = sanitize_messages(messages, SOURCE, source_model=SOURCE)
    assert _signatures(kept.messages[1]) == [SIG]
