"""Options: validation with clear errors, proxy settings, the lazily built proxy handler."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import litellm
import pytest

import litellm_hygiene
from litellm_hygiene import ConfigurationError, HygieneCallback, HygieneOptions, MemoryStore
from litellm_hygiene import TieredStore as Tiered
from litellm_hygiene._integration import _proxy
from litellm_hygiene._integration._report import CallReport, ReportBook, headers_for
from litellm_hygiene._openai import STAMP_KEY
from litellm_hygiene._overflow import Overflow


@pytest.fixture
def callback_settings(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    monkeypatch.setattr(_proxy, "_handler", None)
    ours = logging.getLogger("litellm_hygiene")
    handlers = list(ours.handlers)
    yield monkeypatch
    ours.handlers[:] = handlers


def test_redis_without_a_host_is_a_startup_error(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("REDIS_HOST", "REDIS_URL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ConfigurationError):
        HygieneCallback(provenance_store="redis")


async def test_a_failing_store_costs_neither_the_transform_nor_the_overflow_flag() -> None:
    class Broken(MemoryStore):
        async def aget(self, keys: Any) -> Any:
            raise ConnectionError("down")

        async def aget_many(self, key_sets: Any) -> Any:
            raise ConnectionError("down")

        async def aput(self, keys: Any, provenance: Any) -> None:
            raise ConnectionError("down")

    callback = HygieneCallback(store=Broken())
    history = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": None,
            # Thinking, and nothing that says which protocol the turn came from: its
            # provenance decides whether the thinking is replayed.
            "thinking_blocks": [{"type": "thinking", "thinking": "t"}],
            "tool_calls": [
                {"id": "t-01", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "t-01", "content": "1"},
    ]
    kwargs = {"model": "mistral/mistral-large-latest", "messages": history, "litellm_call_id": "c"}
    new = await callback.async_pre_call_deployment_hook(kwargs, "acompletion")
    assert new is not None and len(new["messages"][1]["tool_calls"][0]["id"]) == 9
    assert callback.stats["store_errors"] == 1
    assert callback.stats["errors"] == 0


class _Counting(MemoryStore):
    def __init__(self) -> None:
        super().__init__()
        self.asked: list[list[list[str]]] = []

    async def aget_many(self, key_sets: Any) -> Any:
        self.asked.append([list(keys) for keys in key_sets])
        return await super().aget_many(key_sets)


_CLAUDE_STAMP = {"provider": "anthropic", "api": "anthropic-messages", "model": "claude-x"}


def _call(call_id: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": "f", "arguments": "{}"}}


async def test_only_turns_whose_provenance_matters_are_looked_up_in_one_batch() -> None:
    """With a turn holding opaque data, every unstamped assistant turn may be merged
    with it (what lies between may go), so each is looked up; without one, none is.
    A turn whose own content says it came from another protocol than the target's is
    not replayable whatever its provenance, so it is not looked up either."""
    store = _Counting()
    callback = HygieneCallback(store=store)
    signed = {"type": "thinking", "thinking": "t", "signature": "c2ln"}  # Anthropic's
    history: list[dict[str, Any]] = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [_call("t-1")]},  # plain
        {"role": "tool", "tool_call_id": "t-1", "content": "1"},
        {"role": "assistant", "content": "a", "thinking_blocks": [signed]},  # opaque
        {"role": "user", "content": "more"},
        {"role": "assistant", "content": "b"},  # plain, but merges with the next
        {"role": "assistant", "content": "c", STAMP_KEY: dict(_CLAUDE_STAMP)},  # stamped
        {"role": "user", "content": "end"},
    ]
    kwargs = {"model": "anthropic/claude-x", "messages": history}
    await callback.async_pre_call_deployment_hook(kwargs, "acompletion")
    assert [len(call) for call in store.asked] == [3]  # turns 1, 3 and 5, in one call
    mistral = {**kwargs, "model": "mistral/mistral-large-latest"}
    await callback.async_pre_call_deployment_hook(mistral, "acompletion")
    assert [len(call) for call in store.asked] == [3, 2]  # not turn 3: Anthropic's thinking
    plain = [m for m in history if "thinking_blocks" not in m]
    await callback.async_pre_call_deployment_hook({**kwargs, "messages": plain}, "acompletion")
    assert [len(call) for call in store.asked] == [3, 2]  # nothing opaque: nothing asked


def test_defaults_are_fail_open_with_an_in_process_store() -> None:
    options = HygieneOptions()
    assert not options.fail_closed
    assert not options.reject_predicted_overflow
    assert isinstance(HygieneCallback().store, MemoryStore)
    assert HygieneCallback(provenance_store="none").store is None


def test_unknown_key_and_bad_value_name_the_key_not_the_value() -> None:
    with pytest.raises(ConfigurationError, match="fail_closd"):
        HygieneOptions.from_settings({"fail_closd": True})
    with pytest.raises(ConfigurationError, match="redis_port") as info:
        HygieneOptions.from_settings({"redis_port": "not-a-port-hunter2"})
    assert "hunter2" not in str(info.value)
    with pytest.raises(ConfigurationError, match="mapping"):
        HygieneOptions.from_settings(["fail_closed"])  # type: ignore[arg-type]


def test_environment_references_are_resolved(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HYGIENE_TEST_REDIS_PASSWORD", "s3cret")
    options = HygieneOptions.from_settings(
        {"redis_password": "os.environ/HYGIENE_TEST_REDIS_PASSWORD"}
    )
    assert options.redis_password == "s3cret"
    with pytest.raises(ConfigurationError, match="HYGIENE_TEST_MISSING"):
        HygieneOptions.from_settings({"redis_password": "os.environ/HYGIENE_TEST_MISSING"})


def test_keyword_overrides_are_validated() -> None:
    assert HygieneCallback(fail_closed=True).options.fail_closed
    with pytest.raises(ConfigurationError, match="provenance_store"):
        HygieneCallback(provenance_store="sqlite")


def test_redis_store_is_tiered_over_an_in_process_one() -> None:
    callback = HygieneCallback(provenance_store="redis", redis_host="127.0.0.1", redis_port=1)
    store = callback.store
    assert isinstance(store, Tiered)
    assert isinstance(store.local, MemoryStore)


def test_proxy_handler_reads_callback_settings(callback_settings: pytest.MonkeyPatch) -> None:
    callback_settings.setattr(
        litellm, "callback_settings", {"litellm_hygiene": {"fail_closed": True}}
    )
    handler = litellm_hygiene.proxy_handler
    assert isinstance(handler, HygieneCallback)
    assert handler.options.fail_closed
    assert litellm_hygiene.proxy_handler is handler  # one per process


def test_proxy_handler_rejects_bad_settings_at_startup(
    callback_settings: pytest.MonkeyPatch,
) -> None:
    settings = {"litellm_hygiene": {"provenance_store": "postgres"}}
    callback_settings.setattr(litellm, "callback_settings", settings)
    with pytest.raises(ConfigurationError, match="provenance_store"):
        _ = litellm_hygiene.proxy_handler


def test_proxy_hooks_are_defined_on_the_leaf_class() -> None:
    # The proxy only calls these hooks when the callback's own class defines them.
    for hook in ("async_post_call_failure_hook", "async_post_call_response_headers_hook"):
        assert hook in HygieneCallback.__dict__


def test_headers_carry_counts_and_overflow_without_content() -> None:
    report = CallReport(
        target="mistral/mistral-large-latest",
        changes={"tool_call_id": 2, "foreign_reasoning": 1},
        overflow=Overflow(
            kind="error_pattern", signal="mistral_too_large", input_tokens=9, context_window=8
        ),
    )
    headers = headers_for(report, "x-litellm-hygiene")
    assert headers["x-litellm-hygiene-changes"] == "foreign_reasoning=1, tool_call_id=2"
    assert headers["x-litellm-hygiene-target"] == "mistral/mistral-large-latest"
    assert headers["x-litellm-hygiene-overflow"] == (
        "kind=error_pattern; signal=mistral_too_large; input_tokens=9; context_window=8"
    )
    assert "x-litellm-hygiene-error" not in headers
    assert headers_for(CallReport(), "x-h")["x-h-changes"] == "none"


def test_messages_kept_unread_are_counted_in_a_header_and_listed_in_the_report() -> None:
    unread = ["messages[3].role: expected 'user', 'assistant' or 'system'"]
    report = CallReport(target="anthropic/claude-opus-4-8", unread=unread)
    assert headers_for(report, "x-h")["x-h-unread"] == "1"
    assert "x-h-unread" not in headers_for(CallReport(), "x-h")
    data = report.as_dict()
    assert data["unread"] == unread
    assert "unread" not in CallReport().as_dict()
    assert CallReport.from_dict(data) == report


def test_report_book_is_bounded() -> None:
    book = ReportBook(max_entries=3)
    for n in range(10):
        book.open(f"call-{n}")
    assert len(book) == 3
    assert book.get("call-0") is None and book.get("call-9") is not None


async def test_failure_hook_upgrades_unmapped_overflow_for_proxy_clients() -> None:
    callback = HygieneCallback()
    error = litellm.BadRequestError(  # type: ignore[attr-defined]
        message="Prompt contains 150004 tokens and 0 draft tokens, too large for model with "
        "131072 maximum context length",
        model="mistral/mistral-large-latest",
        llm_provider="mistral",
    )
    data: dict[str, Any] = {"litellm_call_id": "call-1"}
    result = await callback.async_post_call_failure_hook(data, error, None)  # type: ignore[arg-type]
    assert result.status_code == 400
    assert str(result.detail).startswith("litellm.ContextWindowExceededError:")
    headers = await callback.async_post_call_response_headers_hook(data, None, None)  # type: ignore[arg-type]
    assert headers is not None
    assert "kind=error_pattern" in headers["x-litellm-hygiene-overflow"]
    rate_limited = litellm.RateLimitError(  # type: ignore[attr-defined]
        message="Rate limit reached: tokens per min (TPM)", model="m", llm_provider="openai"
    )
    assert await callback.async_post_call_failure_hook(data, rate_limited, None) is None  # type: ignore[arg-type]
