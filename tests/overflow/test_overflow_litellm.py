"""Overflow detection on LiteLLM's own objects, and prediction with LiteLLM's counter."""

from __future__ import annotations

import json
import os
import socket
import warnings
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import httpx
import pytest

from litellm_hygiene import ConfigurationError
from litellm_hygiene._overflow import (
    OverflowPrediction,
    detect_overflow,
    is_context_overflow,
    lookup_context_window,
    predict_overflow,
)

MISTRAL_BODY = {
    "code": "3051",
    "message": "Prompt contains 150004 tokens and 0 draft tokens, too large for model with "
    "131072 maximum context length",
    "object": "error",
    "param": None,
    "type": "invalid_request_invalid_args",
}
ANTHROPIC_BODY = (
    '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: '
    '200251 tokens > 200000 maximum"},"request_id":"req_011CWdepJvA2D819tdYYq4h7"}'
)
MESSAGES = [
    {"role": "system", "content": "You are a terse assistant."},
    {"role": "user", "content": "Summarise the plot of Hamlet in one sentence."},
    {"role": "assistant", "content": "A prince avenges his father and everyone dies."},
    {"role": "user", "content": "Now in five words."},
]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "lookup",
            "description": "Look a word up in the dictionary.",
            "parameters": {"type": "object", "properties": {"word": {"type": "string"}}},
        },
    }
]


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError("tests must not reach the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


@pytest.fixture(scope="module")
def litellm() -> Iterator[ModuleType]:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm as module

    # LiteLLM finishes its pydantic schemas lazily on first use, and pydantic warns about
    # LiteLLM's ReadOnly TypedDicts then; build them once here, outside -W error.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*ReadOnly.*", category=UserWarning)
        module.ModelResponse(choices=[{"index": 0, "message": {"role": "assistant"}}])
    yield module


@pytest.fixture(autouse=True)
def _offline_tokenizers(monkeypatch: pytest.MonkeyPatch, litellm: ModuleType) -> None:
    """Keep tiktoken on LiteLLM's bundled encodings even if another test reset the env."""
    from litellm.litellm_core_utils import default_encoding

    if not os.environ.get("TIKTOKEN_CACHE_DIR"):
        monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(default_encoding.cache_dir))


def test_unmapped_mistral_bad_request(litellm: ModuleType) -> None:
    err = litellm.BadRequestError(
        message=f"MistralException - {json.dumps(MISTRAL_BODY)}",
        model="mistral/mistral-large-latest",
        llm_provider="mistral",
    )
    found = detect_overflow(err)
    assert found is not None
    assert (found.kind, found.signal, found.provider) == (
        "error_pattern",
        "mistral_too_large_for_model",
        "mistral",
    )
    assert (found.input_tokens, found.context_window, found.status_code) == (150004, 131072, 400)


def test_mapped_context_window_exceeded(litellm: ModuleType) -> None:
    err = litellm.ContextWindowExceededError(
        message=f"AnthropicError - {ANTHROPIC_BODY}",
        model="anthropic/claude-sonnet-4-5",
        llm_provider="anthropic",
    )
    found = detect_overflow(err)
    assert found is not None
    assert (found.kind, found.signal, found.provider) == (
        "error_code",
        "litellm_context_window_exceeded",
        "anthropic",
    )
    assert (found.input_tokens, found.context_window) == (200251, 200000)


def test_bad_request_with_litellm_prefix(litellm: ModuleType) -> None:
    err = litellm.BadRequestError(
        message=f"AnthropicException - {ANTHROPIC_BODY}",
        model="claude-opus-4-5",
        llm_provider="anthropic",
    )
    assert str(err).startswith("litellm.BadRequestError: AnthropicException - ")
    found = detect_overflow(err)
    assert found is not None and found.signal == "anthropic_prompt_too_long"


def test_rate_limit_error_is_not_overflow(litellm: ModuleType) -> None:
    err = litellm.RateLimitError(
        message="BedrockException - Throttling error: Too many tokens, please wait before "
        "trying again.",
        llm_provider="bedrock",
        model="bedrock/anthropic.claude-3-5-sonnet",
    )
    assert err.status_code == 429
    assert detect_overflow(err) is None
    tpm = litellm.RateLimitError(
        message="OpenAIException - Request too large for gpt-4o in organization org-x on "
        "tokens per min (TPM): Limit 30000, Requested 30601.",
        llm_provider="openai",
        model="gpt-4o",
    )
    assert not is_context_overflow(tpm)


def test_context_window_error_around_throttling_text_is_not_overflow(
    litellm: ModuleType,
) -> None:
    # LiteLLM maps any Bedrock error mentioning "too many tokens" to a context error.
    err = litellm.ContextWindowExceededError(
        message="BedrockException: Context Window Error - Too many tokens, please wait "
        "before trying again.",
        model="bedrock/anthropic.claude-3-5-sonnet",
        llm_provider="bedrock",
    )
    assert detect_overflow(err) is None


def test_cerebras_empty_body(litellm: ModuleType) -> None:
    err = litellm.BadRequestError(
        message="CerebrasException - 400 status code (no body)",
        model="cerebras/qwen-3-235b",
        llm_provider="cerebras",
    )
    found = detect_overflow(err)
    assert found is not None and (found.signal, found.provider) == ("cerebras_no_body", "cerebras")


def test_provider_sdk_error_with_body() -> None:
    import openai

    request = httpx.Request("POST", "https://api.openai.com/v1/chat/completions")
    body = {
        "code": "context_length_exceeded",
        "message": "Your input exceeds the context window of this model.",
        "param": "input",
        "type": "invalid_request_error",
    }
    err = openai.BadRequestError(
        "Error code: 400", response=httpx.Response(400, request=request), body=body
    )
    found = detect_overflow(err)
    assert found is not None and (found.kind, found.status_code) == ("error_code", 400)


def test_chained_cause_is_read(litellm: ModuleType) -> None:
    cause = ValueError("prompt tokens (330095) exceed model maximum (278528)")
    try:
        raise RuntimeError("the call failed") from cause
    except RuntimeError as err:
        found = detect_overflow(err)
    assert found is not None and found.signal == "bedrock_mantle_prompt_tokens"


def test_model_response_length_stop(litellm: ModuleType) -> None:
    response = litellm.ModelResponse(
        choices=[
            {"finish_reason": "length", "index": 0, "message": {"role": "assistant", "content": ""}}
        ],
        usage={"prompt_tokens": 99_000, "completion_tokens": 0, "total_tokens": 99_000},
    )
    found = detect_overflow(response, context_window=100_000)
    assert found is not None and found.kind == "length_stop_full_window"
    assert detect_overflow(response, context_window=100_001) is None
    over = detect_overflow(response, context_window=98_999)
    assert over is not None and over.kind == "usage_over_window"


def test_model_response_hidden_raw_stop_reason(litellm: ModuleType) -> None:
    raw = {"type": "message", "stop_reason": "model_context_window_exceeded", "content": []}
    response = litellm.ModelResponse(
        choices=[
            {"finish_reason": "stop", "index": 0, "message": {"role": "assistant", "content": "x"}}
        ],
        usage={"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11},
    )
    # Set the way LiteLLM's providers do: the constructor argument does not survive init.
    response._hidden_params = {
        "custom_llm_provider": "anthropic",
        "original_response": json.dumps(raw),
    }
    found = detect_overflow(response)
    assert found is not None and (found.kind, found.provider) == ("stop_reason", "anthropic")


def test_model_response_with_raw_response_argument(litellm: ModuleType) -> None:
    response = litellm.ModelResponse(
        choices=[
            {"finish_reason": "length", "index": 0, "message": {"role": "assistant", "content": ""}}
        ],
        usage={"prompt_tokens": 10, "completion_tokens": 0, "total_tokens": 10},
    )
    assert detect_overflow(response, context_window=1000) is None
    raw = '{"stop_reason": "model_context_window_exceeded", "type": "message"}'
    found = detect_overflow(response, raw_response=raw, context_window=1000)
    assert found is not None and found.kind == "stop_reason"


def _count(litellm: ModuleType, model: str, tools: Any = None) -> int:
    return int(litellm.token_counter(model=model, messages=MESSAGES, tools=tools))


def test_predict_agrees_with_token_counter(litellm: ModuleType) -> None:
    counted = _count(litellm, "gpt-4o")
    fits = predict_overflow(MESSAGES, "gpt-4o", context_window=counted)
    assert (fits.estimated_tokens, fits.overflows, fits.overflow_tokens) == (counted, False, 0)
    assert fits.can_predict and fits.window_source == "override"
    over = predict_overflow(MESSAGES, "gpt-4o", context_window=counted - 1)
    assert (over.overflows, over.overflow_tokens, over.available_tokens) == (True, 1, counted - 1)


def test_predict_reserves_the_requested_output(litellm: ModuleType) -> None:
    counted = _count(litellm, "gpt-4o")
    window = counted + 100
    assert not predict_overflow(MESSAGES, "gpt-4o", context_window=window, max_tokens=100).overflows
    over = predict_overflow(MESSAGES, "gpt-4o", context_window=window, max_tokens=101)
    assert (over.overflows, over.overflow_tokens, over.reserved_output) == (True, 1, 101)
    capped = predict_overflow(
        MESSAGES, "gpt-4o", context_window=window, max_tokens=10**6, max_output_tokens=100
    )
    assert (capped.reserved_output, capped.overflows) == (100, False)


def test_predict_counts_tools(litellm: ModuleType) -> None:
    with_tools = predict_overflow(MESSAGES, "gpt-4o", tools=TOOLS)
    assert with_tools.estimated_tokens == _count(litellm, "gpt-4o", TOOLS)
    without = predict_overflow(MESSAGES, "gpt-4o")
    assert (with_tools.estimated_tokens or 0) > (without.estimated_tokens or 0)


def test_predict_uses_litellm_model_info(litellm: ModuleType) -> None:
    info = litellm.get_model_info("gpt-4o")
    found = predict_overflow(MESSAGES, "gpt-4o", max_tokens=1000)
    assert (found.context_window, found.window_source) == (
        info["max_input_tokens"],
        "max_input_tokens",
    )
    assert found.max_output_tokens == info["max_output_tokens"]
    assert found.available_tokens == info["max_input_tokens"] - 1000
    assert lookup_context_window("gpt-4o") == info["max_input_tokens"]
    deployment = predict_overflow(MESSAGES, "gpt-4o", model_info={"max_input_tokens": 5})
    assert deployment.context_window == 5 and deployment.overflows


def test_predict_unknown_model_says_it_cannot(litellm: ModuleType) -> None:
    found = predict_overflow(MESSAGES, "no-such-provider/no-such-model-xyz")
    assert isinstance(found, OverflowPrediction)
    assert (found.can_predict, found.overflows, found.context_window) == (False, False, None)
    assert found.window_source == "unknown" and found.reason
    assert found.estimated_tokens is not None
    assert lookup_context_window("no-such-provider/no-such-model-xyz") is None
    known = predict_overflow(MESSAGES, "no-such-provider/no-such-model-xyz", context_window=10)
    assert known.can_predict and known.overflows


def test_predict_rejects_bad_arguments() -> None:
    with pytest.raises(ConfigurationError):
        predict_overflow(MESSAGES, "gpt-4o", max_tokens=-1)
    with pytest.raises(ConfigurationError):
        predict_overflow(MESSAGES, "gpt-4o", context_window=0)


@pytest.mark.parametrize(
    "model",
    ["groq/llama-3.3-70b-versatile", "replicate/meta/llama-2-70b-chat", "command-r-plus"],
)
def test_prediction_never_downloads_a_tokenizer(
    model: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """LiteLLM would fetch these models' tokenizers from the Hugging Face hub."""
    from litellm import utils

    fetched: list[Any] = []

    def fetch(*args: Any, **kwargs: Any) -> Any:
        fetched.append(args)
        raise OSError("the Hugging Face hub is unreachable")

    monkeypatch.setattr(utils.tokenizer_dispatch, "from_pretrained", fetch)  # type: ignore[attr-defined]
    messages = [{"role": "user", "content": "hello world " * 50}]
    prediction = predict_overflow(messages, model, context_window=10)
    assert fetched == []
    assert prediction.estimated_tokens is not None and prediction.overflows
