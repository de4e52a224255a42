"""Properties of the pipeline over generated transcripts, for every target family."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from litellm_hygiene import policy_for, resolve_target, sanitize_messages, validate_for_target
from litellm_hygiene._openai._tools import split_id
from litellm_hygiene._passes._tool_ids import id_is_valid

from .strategies import transcripts

TARGETS = [
    "anthropic/claude-sonnet-4-5",
    "bedrock/converse/us.anthropic.claude-3-7-sonnet-20250219-v1:0",
    "gemini/gemini-2.5-pro",
    "gpt-4o",
    "openai/responses/gpt-5",
    "mistral/mistral-large-latest",
    "openrouter/mistralai/mistral-large",
    "deepseek/deepseek-chat",
]
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


def _key(call: dict[str, Any]) -> str:
    return split_id(call["id"])[0] if isinstance(call.get("id"), str) else ""


def _expected(message: dict[str, Any]) -> list[str]:
    keys = [_key(c) for c in message.get("tool_calls") or []]
    if isinstance(message.get("function_call"), dict):
        keys.append("function:" + message["function_call"]["name"])
    return keys


def _answer_key(message: dict[str, Any]) -> str:
    if message["role"] == "function" and not message.get("tool_call_id"):
        return "function:" + str(message["name"])
    return split_id(str(message["tool_call_id"]))[0]


def assert_pairing(messages: list[dict[str, Any]]) -> None:
    """Every call has exactly one result before the next turn; no result without call."""
    position = 0
    while position < len(messages):
        message = messages[position]
        position += 1
        if message["role"] in ("tool", "function"):
            raise AssertionError(f"result without call at {position - 1}")
        if message["role"] != "assistant":
            continue
        expected = _expected(message)
        answers = []
        while position < len(messages) and messages[position]["role"] in ("tool", "function"):
            answers.append(_answer_key(messages[position]))
            position += 1
        assert answers == expected, (answers, expected)


@pytest.mark.parametrize("model", TARGETS)
@SETTINGS
@given(messages=transcripts)
def test_pipeline_pairs_is_idempotent_and_pure(model: str, messages: list[dict[str, Any]]) -> None:
    before = copy.deepcopy(messages)
    once = sanitize_messages(messages, model)
    assert messages == before
    assert_pairing(once.messages)
    target = resolve_target(model)
    assert validate_for_target(once.messages, target, policy_for(target)) == []
    twice = sanitize_messages(once.messages, model)
    assert twice.messages == once.messages
    assert not twice.report.changed


@pytest.mark.parametrize("model", TARGETS)
@SETTINGS
@given(messages=transcripts)
def test_foreign_ids_are_valid_for_the_target(model: str, messages: list[dict[str, Any]]) -> None:
    policy = policy_for(resolve_target(model)).model_copy(update={"unknown_provenance": "foreign"})
    out = sanitize_messages(messages, model, policy=policy).messages
    for message in out:
        for call in message.get("tool_calls") or []:
            assert id_is_valid(_key(call), policy.tool_ids), call["id"]


@pytest.mark.parametrize("model", TARGETS)
@SETTINGS
@given(messages=transcripts)
def test_validator_clean_means_pipeline_changes_nothing(
    model: str, messages: list[dict[str, Any]]
) -> None:
    # The hot path returns a request unchanged when the validator finds nothing; that is
    # sound only if the full pipeline would not have changed it either.
    from litellm_hygiene._sanitize import transform_all

    target = resolve_target(model)
    policy = policy_for(target)
    if validate_for_target(messages, target, policy) == []:
        full = transform_all(messages, target, policy=policy)
        assert not full.report.changed, full.report.counts()
