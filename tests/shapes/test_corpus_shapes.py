"""Real recorded ``/v1/messages`` and ``/v1/responses`` request bodies (``../shared/corpus``).

Every request body recorded against Anthropic's Messages API and OpenAI's Responses API is
read into the neutral model and written back exactly; every one the provider accepted
goes through the rules, for the model it was recorded with, unchanged: a real history a
provider takes is one hygiene leaves alone.
"""

from __future__ import annotations

from typing import Any

import pytest

from litellm_hygiene import resolve_target, sanitize_anthropic_messages
from litellm_hygiene._anthropic import from_anthropic, to_anthropic
from litellm_hygiene._openai._wire import OPENAI
from litellm_hygiene._pipeline import context_for
from litellm_hygiene._responses import from_responses, to_responses
from litellm_hygiene._responses._chat import read_as_chat
from litellm_hygiene._sanitize import read_request, sanitize_read
from tests.support.corpus import Interaction, all_interactions, require_corpus


def _bodies(suffix: str, key: str) -> list[tuple[Interaction, dict[str, Any]]]:
    require_corpus()
    found = []
    for interaction in all_interactions():
        request = interaction.request
        if request is None or not request.path.endswith(suffix):
            continue
        if isinstance(request.json, dict) and isinstance(request.json.get(key), list):
            found.append((interaction, request.json))
    return found


def test_the_corpus_holds_requests_of_both_shapes() -> None:
    assert len(_bodies("/v1/messages", "messages")) >= 15
    assert len(_bodies("/responses", "input")) >= 10


def test_every_recorded_anthropic_request_is_written_back_exactly() -> None:
    for interaction, body in _bodies("/v1/messages", "messages"):
        system = body.get("system")
        written = to_anthropic(from_anthropic(body["messages"], system))
        assert written == (body["messages"], system), interaction.cassette


def test_every_recorded_responses_request_is_written_back_exactly() -> None:
    for interaction, body in _bodies("/responses", "input"):
        instructions = body.get("instructions")
        written = to_responses(from_responses(body["input"], instructions))
        assert written == (body["input"], instructions), interaction.cassette


@pytest.mark.parametrize("shape", ["messages", "responses"])
def test_what_the_provider_accepted_goes_out_unchanged(shape: str) -> None:
    bodies = (
        _bodies("/v1/messages", "messages")
        if shape == "messages"
        else (_bodies("/responses", "input"))
    )
    accepted = [(i, b) for i, b in bodies if i.response.ok]
    assert accepted
    for interaction, body in accepted:
        model = str(body.get("model"))
        if shape == "messages":
            params = {"thinking": body["thinking"]} if "thinking" in body else None
            result = sanitize_anthropic_messages(
                body["messages"], f"anthropic/{model}", system=body.get("system"), params=params
            )
            changes = result.report.changes
        else:
            chat = read_as_chat(body["input"], body.get("instructions"))
            ctx = context_for(resolve_target(f"openai/responses/{model}"))
            changes = sanitize_read(read_request(chat.messages, ctx, None, OPENAI)).report.changes
        assert changes == (), f"{interaction.cassette}: {changes}"
