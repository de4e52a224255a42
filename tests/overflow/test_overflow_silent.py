"""Silent overflow: successful calls whose usage or stop reason shows the prompt did not fit."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import litellm_hygiene
from litellm_hygiene import AssistantMessage, ConfigurationError, Usage
from litellm_hygiene._messages import StopReason
from litellm_hygiene._overflow import detect_overflow, is_context_overflow

WINDOW = 200_000


def _reply(
    input_tokens: int,
    output_tokens: int,
    *,
    cache_read: int = 0,
    stop: StopReason = "stop",
    **fields: Any,
) -> AssistantMessage:
    usage = Usage(input=input_tokens, output=output_tokens, cache_read=cache_read)
    return AssistantMessage(usage=usage, stop_reason=stop, **fields)


def test_input_exactly_at_the_window_is_not_overflow() -> None:
    assert detect_overflow(_reply(WINDOW, 10), context_window=WINDOW) is None


def test_one_token_over_the_window_is_overflow() -> None:
    found = detect_overflow(_reply(WINDOW + 1, 10), context_window=WINDOW)
    assert found is not None
    assert found.kind == "usage_over_window"
    assert (found.input_tokens, found.context_window, found.excess_tokens) == (
        WINDOW + 1,
        WINDOW,
        1,
    )


def test_cache_reads_count_towards_the_window() -> None:
    assert detect_overflow(_reply(100_000, 5, cache_read=100_000), context_window=WINDOW) is None
    found = detect_overflow(_reply(100_000, 5, cache_read=100_001), context_window=WINDOW)
    assert found is not None and found.kind == "usage_over_window"


def test_length_stop_with_no_output_at_99_percent_is_overflow() -> None:
    found = detect_overflow(_reply(198_000, 0, stop="length"), context_window=WINDOW)
    assert found is not None
    assert found.kind == "length_stop_full_window"
    assert found.is_context_overflow


def test_length_stop_just_under_99_percent_is_not_overflow() -> None:
    assert detect_overflow(_reply(197_999, 0, stop="length"), context_window=WINDOW) is None


def test_length_stop_with_output_is_not_overflow() -> None:
    assert detect_overflow(_reply(198_000, 1, stop="length"), context_window=WINDOW) is None


def test_full_window_without_length_stop_is_not_overflow() -> None:
    assert detect_overflow(_reply(WINDOW, 0, stop="stop"), context_window=WINDOW) is None


def test_length_stop_at_exactly_the_window_is_overflow() -> None:
    found = detect_overflow(_reply(WINDOW, 0, stop="length"), context_window=WINDOW)
    assert found is not None and found.kind == "length_stop_full_window"


def test_usage_rules_need_a_window() -> None:
    assert detect_overflow(_reply(WINDOW * 5, 0, stop="length")) is None


def test_stop_reason_in_provider_specific_fields() -> None:
    reply = _reply(
        1000,
        0,
        stop="length",
        provider="anthropic",
        provider_specific_fields={"stop_reason": "model_context_window_exceeded"},
    )
    found = detect_overflow(reply)
    assert found is not None
    assert (found.kind, found.provider) == ("stop_reason", "anthropic")


def test_stop_reason_in_a_raw_response() -> None:
    raw = {"id": "msg_1", "type": "message", "stop_reason": "model_context_window_exceeded"}
    found = detect_overflow(_reply(10, 0, stop="length"), raw_response=raw)
    assert found is not None and found.kind == "stop_reason"
    found = detect_overflow(_reply(10, 0, stop="length"), raw_response=str(raw).replace("'", '"'))
    assert found is not None and found.kind == "stop_reason"


def test_bedrock_converse_stop_reason() -> None:
    raw = {"stopReason": "model_context_window_exceeded", "usage": {"inputTokens": 5}}
    found = detect_overflow(raw, provider="bedrock")
    assert found is not None and (found.kind, found.provider) == ("stop_reason", "bedrock")


def test_error_message_on_an_assistant_message() -> None:
    reply = AssistantMessage(
        stop_reason="error",
        error_message="Prompt contains 300000 tokens, too large for model with 131072 "
        "maximum context length",
        provider="mistral",
    )
    found = detect_overflow(reply, context_window=131072)
    assert found is not None
    assert (found.kind, found.provider, found.input_tokens) == ("error_pattern", "mistral", 300000)


def test_a_model_saying_the_words_is_not_an_error() -> None:
    response = {
        "choices": [
            {
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": "Your prompt is too long: trim it."},
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 8},
    }
    assert detect_overflow(response, context_window=WINDOW) is None


@pytest.mark.parametrize(
    ("usage", "expected"),
    [
        ({"prompt_tokens": 200_001, "completion_tokens": 3}, "usage_over_window"),
        ({"input_tokens": 100_000, "cache_read_input_tokens": 100_001}, "usage_over_window"),
        ({"prompt_tokens": 198_000, "completion_tokens": 0}, "length_stop_full_window"),
        ({"prompt_tokens": 200_000, "completion_tokens": 3}, None),
    ],
)
def test_raw_response_usage(usage: dict[str, int], expected: str | None) -> None:
    response = {"choices": [{"finish_reason": "length"}], "usage": usage}
    found = detect_overflow(response, context_window=WINDOW)
    assert (found.kind if found else None) == expected


def test_bad_window_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError):
        detect_overflow(_reply(1, 1), context_window=0)


def test_unreadable_source_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError):
        detect_overflow(42)  # type: ignore[arg-type]


@given(
    st.integers(min_value=0, max_value=10**7),
    st.integers(min_value=0, max_value=10**6),
    st.integers(min_value=0, max_value=10**6),
    st.integers(min_value=1, max_value=10**7),
)
def test_usage_over_window_iff_input_plus_cache_exceeds(
    input_tokens: int, cache_read: int, output: int, window: int
) -> None:
    reply = _reply(input_tokens, output, cache_read=cache_read)
    assert is_context_overflow(reply, context_window=window) is (input_tokens + cache_read > window)


def test_no_overflow_module_imports_litellm_at_import_time() -> None:
    package = Path(litellm_hygiene.__file__).parent / "_overflow"
    for module in sorted(package.glob("*.py")):
        for node in ast.parse(module.read_text(encoding="utf-8")).body:
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            assert not any(n.split(".")[0] == "litellm" for n in names), module.name
