"""Every row of the overflow signal table, each with real provider messages.

Messages are quoted from provider responses, GitHub issues and PROVIDER_RULES.md §6;
the source is noted where it is not obvious from the wording.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from litellm.exceptions import ContextWindowExceededError

from litellm_hygiene import AssistantMessage, TextContent
from litellm_hygiene._overflow import detect_overflow, is_context_overflow
from litellm_hygiene._overflow._detect import deciding_signal
from litellm_hygiene._overflow._signals import LOOKALIKES, SIGNALS


@dataclass(frozen=True)
class Case:
    source: str | Mapping[str, Any]
    status: int | None = None
    provider: str | None = None


ROW_FIXTURES: dict[str, tuple[Case, ...]] = {
    # --- look-alikes
    "http_429": (
        Case('{"error":{"code":429,"message":"Provider returned error"}}', status=429),
        Case("429 status code (no body)", provider="cerebras"),
        Case("Error code: 429 - {'error': {'message': 'Provider returned error', 'code': 429}}"),
    ),
    "rate_limit": (
        Case(
            "Rate limit reached for gpt-4o in organization org-KllXuNW4YzQAfv9Nxc0CGSVl on "
            "tokens per min (TPM): Limit 10000, Used 6630, Requested 3787. Please try again "
            "in 2.502s. (type: tokens, code: rate_limit_exceeded)"
        ),
        Case(
            "An error occurred (ThrottlingException) when calling the Converse operation "
            "(reached max retries: 4): Too many requests, please wait before trying again."
        ),
        Case("Throttling error: Too many tokens, please wait before trying again."),
        Case(
            "This request would exceed the rate limit for your organization of 40,000 input "
            "tokens per minute."
        ),
    ),
    "time_window_quota": (
        Case(
            "Request too large for gpt-4o in organization org-VDAWofJASuLH0vVz8o9tiQZr on "
            "tokens per min (TPM): Limit 30000, Requested 30601. The input or output tokens "
            "must be reduced in order to run successfully."
        ),
        Case("Too many tokens per day"),
    ),
    "quota_or_billing": (
        Case("You exceeded your current quota, please check your plan and billing details."),
        Case(
            "402 This request requires more credits, or fewer max_tokens. You requested up "
            "to 65536 tokens, but can only a..."
        ),
    ),
    "please_wait": (
        # LiteLLM's Bedrock mapping wraps the throttling text in a context-window prefix.
        Case(
            "BedrockException: Context Window Error - Too many tokens, please wait before "
            "trying again."
        ),
    ),
    "output_cap": (
        Case(
            "Bad request (400) - invalid_request_error: max_tokens (384000) exceeds model's "
            "maximum output tokens (65536) for model deepseek-v4-flash:0731"
        ),
        Case("AI_APICallError: `max_tokens` must be less than or equal to `16384`"),
        Case(
            "max_tokens: 100000 > 64000, which is the maximum allowed number of output "
            "tokens for claude-opus-4-20250514"
        ),
        Case(
            "max_tokens is too large: 100000. This model supports at most 16384 completion "
            "tokens, whereas you provided 100000."
        ),
        Case(
            "Unable to submit request because it has a maxOutputTokens value of 100000 but "
            "the supported range is from 1 (inclusive) to 65537 (exclusive). Update the "
            "value and try again."
        ),
        Case("Input validation error: `max_new_tokens` must be <= 2048. Given: 4096"),
    ),
    "batch_limit": (
        Case(
            '{"object":"error","message":"Too many tokens in batch. Max is 16384 got 17555",'
            '"type":"invalid_request_error","param":null,"code":null}'
        ),
    ),
    "parameter_string_length": (
        Case(
            "Invalid 'user': string too long. Expected a string with maximum length 64, but "
            "got a string with length 100 instead."
        ),
    ),
    "tool_id_too_long": (
        # LiteLLM maps this one to ContextWindowExceededError: an id error, not overflow.
        Case(
            "Invalid 'messages[11].tool_calls[0].id': string too long. Expected a string with "
            "maximum length 40, but got a string with length 41 instead."
        ),
        Case(
            "Invalid 'input[262].call_id': string too long. Expected a string with maximum "
            "length 64, but got a string with length 73 instead."
        ),
    ),
    # --- structured
    "context_length_exceeded": (
        Case(
            '{"error": {"code": "context_length_exceeded", "message": "This model\'s maximum '
            "context length is 128000 tokens. However, your messages resulted in 150008 "
            'tokens. Please reduce the length of the messages.", "param": "messages", '
            '"type": "invalid_request_error"}}',
            status=400,
        ),
        Case(
            "context_length_exceeded · invalid_request_error · Your input exceeds the "
            "context window of this model. Please adjust your input and try again."
        ),
    ),
    "litellm_context_window_exceeded": (
        Case(
            "litellm.ContextWindowExceededError: litellm.BadRequestError: AnthropicError - "
            "Input is too long for requested model."
        ),
    ),
    "exceed_context_size_error": (
        Case(
            '{"error":{"code":400,"message":"the request exceeds the available context size. '
            'try increasing the context size or enable context shift","type":'
            '"exceed_context_size_error","n_prompt_tokens":14429,"n_ctx":8192}}'
        ),
    ),
    "model_max_prompt_tokens_exceeded": (
        Case(
            '{"error":{"message":"prompt token count of 1236658 exceeds the limit of 128000",'
            '"code":"model_max_prompt_tokens_exceeded"}}'
        ),
    ),
    "tokens_limit_reached": (
        Case(
            '{"error":{"code":"tokens_limit_reached","message":"Request body too large for '
            'gpt-4o model. Max size: 8000 tokens.","details":"Request body too large for '
            'gpt-4o model. Max size: 8000 tokens."}}',
            status=413,
        ),
    ),
    "request_too_large_code": (
        Case(
            '{"error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}',
            status=413,
        ),
        Case(
            '{"error": {"message": "Invalid \'messages[1].content\': string too long. '
            "Expected a string with maximum length 10485760, but got a string with length "
            '20971521 instead.", "type": "invalid_request_error", "param": '
            '"messages[1].content", "code": "string_above_max_length"}}'
        ),
    ),
    "model_context_window_exceeded": (
        Case(
            {
                "type": "message",
                "role": "assistant",
                "content": [],
                "stop_reason": "model_context_window_exceeded",
                "usage": {"input_tokens": 199990, "output_tokens": 0},
            }
        ),
        Case({"choices": [{"index": 0, "finish_reason": "model_context_window_exceeded"}]}),
    ),
    # --- wording
    "anthropic_prompt_too_long": (
        Case("prompt is too long: 209062 tokens > 199999 maximum"),
        Case(
            '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too '
            'long: 219898 tokens > 200000 maximum"},"request_id":"req_011CVjxiYzEFcAQC4Fk87zw2"}'
        ),
    ),
    "openai_maximum_context_length": (
        Case(
            "OpenAI error: This model's maximum context length is 2049 tokens, however you "
            "requested 2054 tokens (2049 in your prompt, 5 for the completion). Please "
            "reduce your prompt or completion length."
        ),
        Case(
            "This endpoint's maximum context length is 40960 tokens. However, you requested "
            "about 42988 tokens (38892 of text input, 4096 in the output). Please reduce the "
            'length of either one, or use the "middle-out" transform to compress your prompt '
            "automatically."
        ),
    ),
    "mistral_too_large_for_model": (
        Case(
            "Prompt contains 300000 tokens, too large for model with 131072 maximum context length"
        ),
        Case(
            '{"code": "3051", "message": "Prompt contains 150004 tokens and 0 draft tokens, '
            'too large for model with 131072 maximum context length", "object": "error", '
            '"param": null, "type": "invalid_request_invalid_args"}'
        ),
    ),
    "gemini_input_token_count": (
        Case(
            '{"error":{"code":400,"message":"The input token count (134123) exceeds the '
            'maximum number of tokens allowed (131072).","status":"INVALID_ARGUMENT"}}'
        ),
        Case(
            "Unable to submit request because the input token count is 40000 but model only "
            "supports up to 32768. Reduce the input token count and try again."
        ),
    ),
    "bedrock_mantle_prompt_tokens": (Case("prompt tokens (330095) exceed model maximum (278528)"),),
    "copilot_prompt_token_count": (
        Case('{"error":{"message":"prompt token count of 93854 exceeds the limit of 90000"}}'),
        Case("Requested token count exceeds the model's maximum context length of 131072 tokens"),
    ),
    "copilot_exceeds_the_limit": (
        # Copilot's wording as ports of pi's detector test it: only the tail it matches.
        Case('{"message":"exceeds the limit of 128000"}', provider="github_copilot"),
        Case('{"error":{"message":"exceeds the limit of 200000"}}'),
    ),
    "kimi_model_token_limit": (
        Case("Your request exceeded model token limit: 262144 (requested: 300000)"),
    ),
    "xai_maximum_prompt_length": (
        Case(
            "This model's maximum prompt length is 131072 but the request contains 537812 tokens."
        ),
    ),
    "cerebras_current_length": (
        Case(
            "400 Please reduce the length of the messages or completion. Current length is "
            "42328 while limit is 40000"
        ),
    ),
    "tgi_inputs_tokens": (
        Case(
            "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 8192. "
            "Given: 6204 `inputs` tokens and 2047 `max_new_tokens`"
        ),
    ),
    "dashscope_input_length_range": (Case("Range of input length should be [1, 30720]"),),
    "lm_studio_context_overflow": (
        Case(
            "[ERROR] Trying to keep the first 10136 tokens when context the overflows. "
            "However, the model is loaded with context length of only 7866 tokens, which is "
            "not enough."
        ),
        Case("Cannot truncate prompt with n_keep (15028) >= n_ctx (7424)"),
    ),
    "ollama_truncating_prompt": (
        Case(
            'time=2025-03-01T17:27:56.756-08:00 level=WARN source=runner.go:130 msg="truncating'
            ' input prompt" limit=2048 prompt=91541 keep=5 new=2048'
        ),
    ),
    "exceeds_context_window": (
        Case("Your input exceeds the context window of this model."),
        Case("the request exceeds the available context size, try increasing it"),
        Case("prompt too long; exceeded max context length by 1200 tokens"),
        Case("invalid params, context window exceeds limit"),
        Case("Exception: Requested tokens (2285) exceed context window of 2048"),
        Case(
            '{"type":"error","error":{"type":"invalid_request_error","message":"Request size '
            'exceeds model context window"}}',
            status=413,
        ),
    ),
    "longer_than_context": (
        Case("The input (40000 tokens) is longer than the model's context length (32768 tokens)."),
        Case("ValueError: Prompt length of 5016 is longer than the maximum model length of 4096."),
        Case("tokens to keep from the initial prompt is greater than the context length"),
    ),
    "input_tokens_exceed": (
        Case(
            '{"message": "The model returned the following errors: Input Tokens Exceeded: '
            "Number of input tokens exceeds maximum length. Please update the input to try "
            'again."}'
        ),
        Case(
            "the number of input tokens 4228 cannot exceed the total tokens limit 4096 for "
            "this model"
        ),
    ),
    "input_too_long": (
        Case("The model returned the following errors: Input is too long for requested model."),
        Case(
            "WARNING 02-13 07:19:11 scheduler.py:949] Input prompt (32889 tokens) is too long "
            "and exceeds limit of 2048"
        ),
    ),
    "reduce_length": (
        Case(
            '{"error": {"message": "Please reduce the length of the messages or completion.", '
            '"param": "messages", "type": "invalid_request_error"}}'
        ),
    ),
    "tokens_over_limit": (
        Case("Input length 131393 exceeds the maximum allowed input length of 131040 tokens"),
        Case("Prompt has 256468 tokens, but the configured context size is 256000 tokens"),
        Case("Prompt has 256,468 tokens, but the configured context size is 256,000 tokens"),
    ),
    "token_limit_exceeded": (Case("token limit exceeded"), Case("Error: Token limit exceeded.")),
    "too_many_tokens": (
        Case(
            "CohereError: too many tokens: total number of tokens (prompt and prediction) "
            "cannot exceed 2048 - received 6354. Try using a shorter prompt or a smaller "
            "max_tokens value."
        ),
        Case("Prompt has too many tokens"),
    ),
    "cerebras_no_body": (
        Case("400 status code (no body)", provider="cerebras"),
        Case("litellm.BadRequestError: CerebrasException - 400 status code (no body)"),
    ),
    "github_models_max_size": (
        Case("Request body too large for gpt-4o-mini model. Max size: 8000 tokens.", status=413),
    ),
    "request_too_large_text": (
        Case("Request payload size exceeds the limit: 20971520 bytes."),
        Case("Request exceeds the maximum size"),
    ),
    "http_413": (Case("Error code: 413"),),
}


def _cases() -> list[tuple[str, Case]]:
    return [(name, case) for name, cases in ROW_FIXTURES.items() for case in cases]


def test_every_row_has_a_fixture() -> None:
    assert set(ROW_FIXTURES) == {signal.name for signal in SIGNALS}
    assert len({signal.name for signal in SIGNALS}) == len(SIGNALS)


def test_table_order_exclusions_then_structured_then_text_then_status() -> None:
    def stage(index: int) -> int:
        signal = SIGNALS[index]
        if signal.verdict == "exclude":
            return 0
        if signal.codes or signal.stop_reasons:
            return 1
        return 2 if signal.pattern is not None else 3

    stages = [stage(i) for i in range(len(SIGNALS))]
    assert stages == sorted(stages)
    assert SIGNALS[: len(LOOKALIKES)] == LOOKALIKES


@pytest.mark.parametrize(("row", "case"), _cases(), ids=lambda v: v if isinstance(v, str) else "")
def test_fixture_is_decided_by_its_row(row: str, case: Case) -> None:
    signal = deciding_signal(case.source, status_code=case.status, provider=case.provider)
    assert signal is not None and signal.name == row
    found = detect_overflow(case.source, status_code=case.status, provider=case.provider)
    if signal.verdict == "exclude":
        assert found is None
    else:
        assert found is not None and found.signal == row and found.kind == signal.verdict
        expected = signal.verdict != "request_too_large"
        assert is_context_overflow(case.source, status_code=case.status) is expected


@pytest.mark.parametrize("row", sorted(ROW_FIXTURES))
def test_status_429_is_never_overflow(row: str) -> None:
    for case in ROW_FIXTURES[row]:
        assert detect_overflow(case.source, status_code=429) is None


@pytest.mark.parametrize(
    "text",
    [
        "Input length {n} exceeds the maximum allowed input length of {m} tokens",
        "Prompt has {n} tokens, but the configured context size is {m} tokens",
    ],
)
@given(n=st.integers(1, 2_000_000), m=st.integers(1, 2_000_000), commas=st.booleans())
def test_structural_row_fires_exactly_when_the_request_is_over_the_limit(
    text: str, n: int, m: int, commas: bool
) -> None:
    shown = (lambda v: f"{v:,}") if commas else str
    message = text.format(n=shown(n), m=shown(m))
    found = detect_overflow(message)
    assert (found is not None) is (n > m), message
    if found is not None:
        assert (found.input_tokens, found.context_window) == (n, m)


def test_an_id_error_litellm_maps_to_overflow_is_not_one() -> None:
    message = (
        "Invalid 'messages[11].tool_calls[0].id': string too long. Expected a string with "
        "maximum length 40, but got a string with length 41 instead."
    )
    error = ContextWindowExceededError(message=message, model="gpt-4o", llm_provider="openai")
    assert not is_context_overflow(error)


def test_numbers_are_read_from_the_wording() -> None:
    found = detect_overflow("prompt is too long: 213462 tokens > 200000 maximum")
    assert found is not None
    assert (found.input_tokens, found.context_window, found.excess_tokens) == (
        213462,
        200000,
        13462,
    )


@pytest.mark.parametrize(
    ("message", "row", "tokens", "limit"),
    [
        # Copilot's own wording (vscode#289514, vscode-copilot-release#6700), and the
        # example of issue 27.
        (
            '{"error":{"message":"prompt token count of 514673 exceeds the limit of 128000",'
            '"code":"model_max_prompt_tokens_exceeded"}}',
            "model_max_prompt_tokens_exceeded",
            514673,
            128000,
        ),
        (
            '{"error":{"message":"prompt token count of 65446 exceeds the limit of 64000",'
            '"param":"","code":"","type":""}}',
            "copilot_prompt_token_count",
            65446,
            64000,
        ),
        ("prompt token count of 135744 exceeds the limit of 128000", None, 135744, 128000),
        ("prompt token count of 135,744 exceeds the limit of 128,000", None, 135744, 128000),
        # pi's short form: the clause alone, after an error label, or with the prompt as
        # its subject.
        ("exceeds the limit of 128000", "copilot_exceeds_the_limit", None, 128000),
        ("Exceeds the limit of 128000.", "copilot_exceeds_the_limit", None, 128000),
        (
            "litellm.BadRequestError: Github_copilotException - exceeds the limit of 128000",
            "copilot_exceeds_the_limit",
            None,
            128000,
        ),
        ("Request failed: exceeds the limit of 90000", "copilot_exceeds_the_limit", None, 90000),
        ("prompt exceeds the limit of 128,000 tokens", "copilot_exceeds_the_limit", None, 128000),
        ("input tokens exceeds the limit of 64000", "copilot_exceeds_the_limit", None, 64000),
    ],
)
def test_copilot_wording_long_and_short(
    message: str, row: str | None, tokens: int | None, limit: int
) -> None:
    found = detect_overflow(message)
    assert found is not None and found.kind in ("error_pattern", "error_code")
    assert found.signal == (row or "copilot_prompt_token_count")
    assert (found.input_tokens, found.context_window) == (tokens, limit)


@pytest.mark.parametrize(
    "message",
    [
        # Something other than the prompt exceeds a limit...
        "max_tokens of 5000 exceeds the limit of 4096",
        "Error: max_tokens exceeds the limit of 4096",
        "'max_tokens': exceeds the limit of 4096",
        "max tokens exceeds the limit of 4096 tokens",
        "output token count of 5000 exceeds the limit of 4096",
        "completion token count of 5000 exceeds the limit of 4096",
        "Your monthly token usage exceeds the limit",
        "The number of diagnostics exceeds the limit allowed.",
        # ... or the limit is in another unit.
        "file size exceeds the limit of 10MB",
        "request rate exceeds the limit of 60 per minute",
        "image exceeds the limit of 5 MB",
        "exceeds the limit of 5 MB",
        "exceeds the limit of 1.5 GB",
        "prompt exceeds the limit of 10MB",
        "conversation exceeds the limit of 100 messages",
        "Your request exceeds the limit of 100 requests",
        '{"error":{"message":"exceeds the limit of 20 images"}}',
    ],
)
def test_copilot_lookalikes_are_not_overflows(message: str) -> None:
    assert detect_overflow(message) is None


def test_code_rows_borrow_numbers_from_the_text() -> None:
    body = ROW_FIXTURES["context_length_exceeded"][0].source
    found = detect_overflow(body)
    assert found is not None and found.kind == "error_code"
    assert (found.input_tokens, found.context_window) == (150008, 128000)
    assert found.status_code is None


def test_provider_hint_labels_generic_rows() -> None:
    found = detect_overflow("Context size has been exceeded.", provider="lm_studio")
    assert found is not None and found.provider == "lm_studio"
    found = detect_overflow("prompt is too long: 5 tokens > 4 maximum", provider="bedrock")
    assert found is not None and found.provider == "bedrock"
    found = detect_overflow("prompt is too long: 5 tokens > 4 maximum", provider="openai")
    assert found is not None and found.provider == "anthropic"


def test_bare_no_body_400_is_trusted_only_for_cerebras() -> None:
    assert is_context_overflow("400 status code (no body)")
    assert is_context_overflow("400 status code (no body)", provider="cerebras")
    assert not is_context_overflow("400 status code (no body)", provider="openai")


@given(st.text(max_size=300))
def test_any_text_is_read_without_error(text: str) -> None:
    found = detect_overflow(text)
    assert found is None or found.kind != "usage_over_window"


def test_a_turn_that_stopped_normally_is_not_an_overflow_whatever_its_error_text() -> None:
    text = "prompt is too long: 250000 tokens > 200000 maximum"
    stopped = AssistantMessage(
        content=(TextContent(text="ok"),), stop_reason="stop", error_message=text
    )
    assert not is_context_overflow(stopped)
    failed = AssistantMessage(content=(), stop_reason="error", error_message=text)
    assert is_context_overflow(failed)
