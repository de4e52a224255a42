"""Properties over generated OpenAI-shaped transcripts."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings

from litellm_hygiene import context_from_json, context_to_json, from_openai, to_openai
from tests.support.strategies import transcripts

SETTINGS = settings(max_examples=300, deadline=None)


@SETTINGS
@given(transcripts)
def test_openai_round_trip_is_exact(messages: list[dict[str, Any]]) -> None:
    before = copy.deepcopy(messages)
    assert to_openai(from_openai(messages)) == messages
    assert messages == before


@SETTINGS
@given(transcripts)
def test_json_round_trip_of_the_neutral_model_is_exact(messages: list[dict[str, Any]]) -> None:
    context = from_openai(messages)
    assert context_from_json(context_to_json(context)) == context
