"""Dialect variants beyond each row's own fixtures: rewordings, wrappers, other servers.

The held-out measure uses messages the table was not written from, so these check the
patterns generalise per dialect, and that look-alikes stay excluded.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from litellm_hygiene._overflow import is_context_overflow

OVERFLOW_VARIANTS = (
    "litellm.BadRequestError: AnthropicException - "
    '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: '
    '213462 tokens > 200000 maximum"}}',
    "input length and `max_tokens` exceed context limit: 197626 + 8192 > 200000, decrease "
    "input length or `max_tokens` and try again",
    "Requested token count exceeds the model's maximum context length of 131072 tokens. You "
    "requested a total of 131586 tokens: 129586 tokens from the input messages and 2000 "
    "tokens for the completion.",
    "Invalid request: Your request exceeded model token limit: 8192",
    "<400> InternalError.Algo.InvalidParameter: Range of input length should be [1, 129024]",
    'OllamaException - {"error":"prompt too long; exceeded max context length by 4 tokens"}',
    '{"error":"the input length exceeds the context length"}',
    "too many tokens: total number of tokens in the prompt cannot exceed 4081 - received 4095. "
    "Try using a shorter prompt, or enabling prompt truncating.",
    "too many tokens: size limit exceeded by 19296 tokens. Try using shorter or fewer inputs.",
    "Input validation error: `inputs` must have less than 4096 tokens. Given: 5000",
    "The decoder prompt (length 5000) is longer than the maximum model length of 4096. Make "
    "sure that `max_model_len` is no smaller than the number of text tokens.",
    "This model's maximum context length is 4096 tokens. However, your request has 5000 "
    "input tokens. Please reduce the length of the input messages.",
    "'max_tokens' or 'max_completion_tokens' is too large: 10000. This model's maximum "
    "context length is 16384 tokens and your request has 12000 input tokens "
    "(10000 > 16384 - 12000).",
    "The model returned the following errors: Too many input tokens",
    "An error occurred (ValidationException) when calling the Converse operation: The model "
    "returned the following errors: Input is too long for requested model.",
    "Context size has been exceeded.",
    "Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in "
    "300000 tokens. Please reduce the length of the messages.",
    "The prompt is too long: 200000, model maximum context length: 131072",
    "Error code: 400 - {'error': {'message': 'The input token count exceeds the maximum number "
    "of tokens allowed 1048576.', 'code': 400, 'status': 'INVALID_ARGUMENT'}}",
    "Error: Input text length should not exceed 4096 tokens",
    "Token indices sequence length is longer than the specified maximum sequence length for "
    "this model (600 > 512)",
    "Requested generation length 1000 is not possible! The provided prompt is 5000 tokens "
    "long, so generating 1000 tokens requires a sequence length of 6000, but the maximum "
    "supported sequence length is just 4096!",
    "Input length (5000 tokens) exceeds the maximum allowed length (4096 tokens).",
    "Prompt length (5000) exceeds the max input length",
    "Azure.RequestFailedException: This model's maximum context length is 8192 tokens. "
    "However, your messages resulted in 10383 tokens. Status: 400 (model_error) "
    "ErrorCode: context_length_exceeded",
    "Expected maxLength: 50000, actual: 60000",
    "litellm.ContextWindowExceededError: litellm.BadRequestError: VertexAIException - "
    '{"error": {"code": 400, "message": "Unable to submit request because the input token '
    'count is 1100010 but model only supports up to 1048575.", "status": "INVALID_ARGUMENT"}}',
)

NOT_OVERFLOW_VARIANTS = (
    "Too many tokens per day",
    "Request too large for model `llama3-70b-8192` in organization `org_x` service tier "
    "`on_demand` on tokens per minute (TPM): Limit 6000, Requested 7000, please reduce your "
    "message size and try again.",
    "You have exceeded your daily token limit",
    "Budget has been exceeded! Current cost: 10.2, Max budget: 5.0",
    "Range of max_tokens should be [1, 8192]",
    "image exceeds 5 MB maximum: 7340032 bytes > 5242880 bytes",
    "Invalid 'tools[0].function.description': string too long. Expected a string with maximum "
    "length 1024, but got a string with length 2000 instead.",
    "Quota exceeded for aiplatform.googleapis.com/generate_content_requests_per_minute",
    "Your credit balance is too low to access the Anthropic API.",
    "overloaded_error: Overloaded",
    "messages.3.content.0.text: text content blocks must be non-empty",
    "max_completion_tokens is too large: 50000. This model supports at most 32768 completion "
    "tokens",
    "litellm.RateLimitError: litellm.RateLimitError: VertexAIException - "
    '{"error": {"code": 429, "message": "Resource exhausted. Please try again later."}}',
    "Request timed out.",
    "The requested model 'gpt-5' does not exist.",
    "Error code: 413",
)


@pytest.mark.parametrize("message", OVERFLOW_VARIANTS)
def test_overflow_variants(message: str) -> None:
    assert is_context_overflow(message)


@pytest.mark.parametrize("message", NOT_OVERFLOW_VARIANTS)
def test_not_overflow_variants(message: str) -> None:
    assert not is_context_overflow(message)


@given(st.sampled_from(OVERFLOW_VARIANTS), st.sampled_from(("Rate limit reached.", "per day")))
def test_a_lookalike_phrase_always_wins(message: str, phrase: str) -> None:
    assert not is_context_overflow(f"{message} {phrase}")
