"""HygieneCallback through LiteLLM's real hook machinery (async SDK and Router).

Upstream is LiteLLM's own ``mock_response``: the call runs through ``acompletion``'s
wrapper, so the deployment hooks fire exactly as for a real provider, and a spy
callback registered after hygiene sees the kwargs LiteLLM hands to the provider.
"""

from __future__ import annotations

import asyncio
import copy
import logging
from typing import Any

import litellm
import pytest
from litellm.exceptions import BadRequestError, ContextWindowExceededError
from litellm.integrations.custom_logger import CustomLogger
from litellm.litellm_core_utils.logging_worker import GLOBAL_LOGGING_WORKER
from litellm.router import Router
from litellm.types.utils import Delta, ModelResponseStream, StreamingChoices

import litellm_hygiene
from litellm_hygiene import HygieneCallback, HygieneRouter, MemoryStore
from litellm_hygiene._integration import _request as request_module
from litellm_hygiene._integration._store._fingerprints import fingerprints
from litellm_hygiene._standin import Reply, StandIn, openai_responses

pytestmark = pytest.mark.filterwarnings(
    "ignore:Items? .* (is|are) using the `ReadOnly` qualifier:UserWarning"
)

CLAUDE = "anthropic/claude-sonnet-4-5"
MISTRAL = "mistral/mistral-large-latest"
SIGNATURE = "RXVnQ2tZSUJoQUNHMmJ3VWVaTHNpZ25hdHVyZQ=="
MISTRAL_OVERFLOW = (
    "Prompt contains 150004 tokens and 0 draft tokens, too large for model with 131072 "
    "maximum context length"
)


class Spy(CustomLogger):
    """Records the kwargs each deployment call leaves the hooks with."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[dict[str, Any]] = []

    async def async_pre_call_deployment_hook(
        self, kwargs: dict[str, Any], call_type: Any
    ) -> dict[str, Any] | None:
        self.calls.append({"model": kwargs.get("model"), "messages": kwargs.get("messages")})
        return None


@pytest.fixture
def spy(isolated_litellm_callbacks: None) -> Spy:
    return Spy()


def register(spy: Spy, **options: Any) -> HygieneCallback:
    callback = HygieneCallback(**options)
    litellm.callbacks = [callback, spy]
    return callback


def claude_history() -> Any:
    return [
        {"role": "user", "content": "What is 6*7?"},
        {
            "role": "assistant",
            "content": "",
            "thinking_blocks": [
                {"type": "thinking", "thinking": "Multiply.", "signature": SIGNATURE}
            ],
            "tool_calls": [
                {
                    "id": "toolu_01A09q90qw90lq917835lq9",
                    "type": "function",
                    "function": {"name": "multiply", "arguments": '{"a": 6, "b": 7}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "toolu_01A09q90qw90lq917835lq9", "content": "42"},
    ]


async def test_cross_model_request_is_made_valid_for_the_deployment(spy: Spy) -> None:
    callback = register(spy)
    history = claude_history()
    before = copy.deepcopy(history)
    response = await litellm.acompletion(model=MISTRAL, messages=history, mock_response="42.")
    sent = spy.calls[-1]["messages"]
    assistant = sent[1]
    assert "thinking_blocks" not in assistant
    new_id = assistant["tool_calls"][0]["id"]
    assert len(new_id) == 9 and new_id.isalnum()
    assert sent[2]["tool_call_id"] == new_id
    assert history == before  # the caller's list and dicts are untouched
    report = response._hidden_params[litellm_hygiene.HIDDEN_PARAMS_KEY]
    assert report["target"] == MISTRAL
    assert report["changes"]["tool_call_id"] == 1
    assert report["changes"]["foreign_reasoning"] == 1
    assert report["overflow"] is None
    assert callback.stats["changed"] == 1


async def test_same_model_request_is_left_as_is(spy: Spy) -> None:
    callback = register(spy)
    history = claude_history()
    history[1]["content"] = None  # what Claude returned beside its tool call
    response = await litellm.acompletion(model=CLAUDE, messages=history, mock_response="hey")
    assert spy.calls[-1]["messages"] == history
    assert response._hidden_params["litellm_hygiene"]["changes"] == {}
    # The hook sends the caller's own list; it only adds its report to the metadata.
    kwargs = {"model": CLAUDE, "messages": history}
    returned = await callback.async_pre_call_deployment_hook(kwargs, "acompletion")
    assert returned is not None and returned["messages"] is history
    assert set(returned) == {"model", "messages", "metadata"}
    assert returned["metadata"]["spend_logs_metadata"]["litellm_hygiene_summary"] == "unchanged"


async def test_same_model_empty_text_beside_calls_goes_out_as_null(spy: Spy) -> None:
    """LiteLLM would send "[System: Empty message content sanitised...]" to Claude."""
    register(spy)
    history = claude_history()
    assert history[1]["content"] == ""
    response = await litellm.acompletion(model=CLAUDE, messages=history, mock_response="hey")
    sent = spy.calls[-1]["messages"]
    assert sent[1]["content"] is None
    assert sent[1]["thinking_blocks"] == history[1]["thinking_blocks"]
    assert response._hidden_params["litellm_hygiene"]["changes"] == {"empty_content": 1}


async def test_stamp_round_trip_keeps_same_model_signatures(spy: Spy) -> None:
    register(spy)
    history = [{"role": "user", "content": "hi"}]
    first = await litellm.acompletion(model=CLAUDE, messages=history, mock_response="hey")
    message = first.choices[0].message.model_dump()
    assert message["litellm_hygiene"] == {
        "provider": "anthropic",
        "api": "anthropic-messages",
        "model": "claude-sonnet-4-5",
    }
    message["thinking_blocks"] = [{"type": "thinking", "thinking": "t", "signature": SIGNATURE}]
    follow_up = [*history, message, {"role": "user", "content": "and?"}]
    await litellm.acompletion(model=CLAUDE, messages=follow_up, mock_response="ok")
    sent = spy.calls[-1]["messages"][1]
    # LiteLLM builds Claude's messages from the keys it knows: the stamp stays behind
    # (tests/shapes/test_wire_keys.py reads the body), so hygiene sends the turn as it is.
    assert sent["litellm_hygiene"] == message["litellm_hygiene"]
    assert sent["thinking_blocks"][0]["signature"] == SIGNATURE  # same model: replayed
    await litellm.acompletion(model=MISTRAL, messages=follow_up, mock_response="ok")
    sent = spy.calls[-1]["messages"][1]
    assert "thinking_blocks" not in sent
    assert "litellm_hygiene" not in sent  # Mistral would get it: removed


async def test_provenance_store_restores_a_dropped_stamp(spy: Spy) -> None:
    register(spy, unknown_provenance="foreign", store=MemoryStore())
    first = await litellm.acompletion(
        model=CLAUDE, messages=[{"role": "user", "content": "hi"}], mock_response="Hello there."
    )
    message = first.choices[0].message.model_dump()
    del message["litellm_hygiene"]  # a client that drops unknown fields
    message["thinking_blocks"] = [{"type": "thinking", "thinking": "t", "signature": SIGNATURE}]
    follow_up = [{"role": "user", "content": "hi"}, message, {"role": "user", "content": "?"}]
    response = await litellm.acompletion(model=CLAUDE, messages=follow_up, mock_response="ok")
    assert response._hidden_params["litellm_hygiene"]["restored"] == 1
    assert spy.calls[-1]["messages"][1]["thinking_blocks"][0]["signature"] == SIGNATURE

    # Without the store, the same turn has unknown provenance: treated as foreign.
    register(spy, unknown_provenance="foreign", provenance_store="none")
    await litellm.acompletion(model=CLAUDE, messages=follow_up, mock_response="ok")
    assert "thinking_blocks" not in spy.calls[-1]["messages"][1]


async def test_non_chat_call_types_are_left_alone() -> None:
    callback = HygieneCallback()
    kwargs = {"model": MISTRAL, "messages": claude_history()}
    assert await callback.async_pre_call_deployment_hook(kwargs, "aresponses") is None
    assert await callback.async_pre_call_deployment_hook(kwargs, "anthropic_messages") is None
    assert callback.stats["requests"] == 0


async def test_internal_error_fails_open_by_default(
    spy: Spy, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("secret message content")

    monkeypatch.setattr(request_module, "preparing", broken)
    callback = register(spy)
    history = claude_history()
    with caplog.at_level(logging.WARNING, logger="litellm_hygiene"):
        response = await litellm.acompletion(model=MISTRAL, messages=history, mock_response="x")
    assert spy.calls[-1]["messages"] == history  # sent unchanged
    assert callback.stats["errors"] == 1
    assert callback.stats["error:RuntimeError"] == 1
    assert "RuntimeError" in caplog.text
    assert "secret" not in caplog.text
    assert response._hidden_params["litellm_hygiene"]["error"] == "RuntimeError"


async def test_internal_error_raises_when_fail_closed(
    spy: Spy, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(request_module, "preparing", broken)
    register(spy, fail_closed=True)
    with pytest.raises(Exception, match="boom"):
        await litellm.acompletion(model=MISTRAL, messages=claude_history(), mock_response="x")
    assert spy.calls == []  # nothing reached the provider


async def test_malformed_messages_are_kept_or_rejected(spy: Spy) -> None:
    """A message hygiene cannot read goes as it came (the rest is still transformed);
    with ``fail_closed`` it rejects the request."""
    malformed: list[Any] = [{"role": "user", "content": "hi"}, {"role": "tool", "content": "x"}]
    callback = register(spy)
    await litellm.acompletion(model=MISTRAL, messages=malformed, mock_response="x")
    assert spy.calls[-1]["messages"] == malformed
    assert callback.stats["unread_messages"] == 1
    assert callback.stats["invalid_input"] == 0
    register(spy, fail_closed=True)
    with pytest.raises(BadRequestError, match=r"messages\[1\]\.tool_call_id"):
        await litellm.acompletion(model=MISTRAL, messages=malformed, mock_response="x")


async def test_predicted_overflow_is_rejected_only_when_asked(spy: Spy) -> None:
    huge = [{"role": "user", "content": "word " * 40_000}]
    model_info = {"max_input_tokens": 1000}
    register(spy)
    await litellm.acompletion(
        model=MISTRAL, messages=huge, mock_response="x", model_info=model_info
    )
    callback = register(spy, reject_predicted_overflow=True)
    with pytest.raises(ContextWindowExceededError, match="predicted to exceed"):
        await litellm.acompletion(
            model=MISTRAL, messages=huge, mock_response="x", model_info=model_info
        )
    assert callback.stats["overflow_rejected"] == 1


async def test_sdk_wrapper_raises_unmapped_overflow_as_litellm_error(spy: Spy) -> None:
    register(spy)
    error = BadRequestError(message=MISTRAL_OVERFLOW, model=MISTRAL, llm_provider="mistral")
    with pytest.raises(BadRequestError) as plain:
        await litellm.acompletion(model=MISTRAL, messages=claude_history(), mock_response=error)
    assert not isinstance(plain.value, ContextWindowExceededError)
    assert litellm_hygiene.is_context_overflow(plain.value)
    with pytest.raises(ContextWindowExceededError) as upgraded:
        await litellm_hygiene.acompletion(
            model=MISTRAL, messages=claude_history(), mock_response=error
        )
    assert upgraded.value.__cause__ is not None
    assert "too large for model" in str(upgraded.value)


def test_sync_wrapper_applies_hygiene_and_stamps(spy: Spy) -> None:
    callback = register(spy)
    history = claude_history()
    before = copy.deepcopy(history)
    response = litellm_hygiene.completion(MISTRAL, history, mock_response="ok")
    assert history == before
    report = response._hidden_params["litellm_hygiene"]
    assert report["changes"]["tool_call_id"] == 1
    assert response.choices[0].message.litellm_hygiene["api"] == "mistral"
    assert callback.stats["changed"] == 1
    error = BadRequestError(message=MISTRAL_OVERFLOW, model=MISTRAL, llm_provider="mistral")
    with pytest.raises(ContextWindowExceededError):
        litellm_hygiene.completion(MISTRAL, history, mock_response=error)


async def test_router_fallback_hop_gets_a_request_valid_for_the_fallback(spy: Spy) -> None:
    register(spy)
    router = Router(
        model_list=[
            {
                "model_name": "claude",
                "litellm_params": {"model": CLAUDE, "mock_response": "litellm.InternalServerError"},
            },
            {"model_name": "mistral", "litellm_params": {"model": MISTRAL, "mock_response": "m"}},
        ],
        fallbacks=[{"claude": ["mistral"]}],
        num_retries=0,
    )
    history = claude_history()
    response = await router.acompletion(model="claude", messages=history)
    by_model = {call["model"]: call["messages"] for call in spy.calls}
    assert by_model[CLAUDE][1]["tool_calls"][0]["id"] == "toolu_01A09q90qw90lq917835lq9"
    mistral_id = by_model[MISTRAL][1]["tool_calls"][0]["id"]
    assert len(mistral_id) == 9 and mistral_id.isalnum()
    assert response.choices[0].message.model_dump()["litellm_hygiene"]["model"] == (
        "mistral-large-latest"
    )


class MistralOverflows(CustomLogger):
    """Makes the Mistral deployment fail with Mistral's real overflow wording."""

    async def async_pre_call_deployment_hook(
        self, kwargs: dict[str, Any], call_type: Any
    ) -> dict[str, Any] | None:
        if kwargs.get("model") != MISTRAL:
            return None
        error = BadRequestError(message=MISTRAL_OVERFLOW, model=MISTRAL, llm_provider="mistral")
        return {**kwargs, "mock_response": error}


async def test_hygiene_router_sends_unmapped_overflow_to_context_window_fallbacks(
    spy: Spy,
) -> None:
    register(spy)
    litellm.callbacks.append(MistralOverflows())
    model_list = [
        {"model_name": "small", "litellm_params": {"model": MISTRAL, "mock_response": "x"}},
        {"model_name": "big", "litellm_params": {"model": CLAUDE, "mock_response": "fits"}},
    ]
    plain = Router(model_list=model_list, context_window_fallbacks=[{"small": ["big"]}])
    with pytest.raises(BadRequestError):
        await plain.acompletion(model="small", messages=claude_history())
    router = HygieneRouter(model_list=model_list, context_window_fallbacks=[{"small": ["big"]}])
    response = await router.acompletion(model="small", messages=claude_history())
    assert response.choices[0].message.content == "fits"


TOOL_ID_TOO_LONG = (
    "Invalid 'messages[11].tool_calls[0].id': string too long. Expected a string with maximum "
    "length 40, but got a string with length 41 instead."
)


class IdErrorMappedToOverflow(CustomLogger):
    """Makes the small deployment fail as LiteLLM reports OpenAI's id-length error."""

    async def async_pre_call_deployment_hook(
        self, kwargs: dict[str, Any], call_type: Any
    ) -> dict[str, Any] | None:
        if kwargs.get("model") != "openai/gpt-4o":
            return None
        error = ContextWindowExceededError(
            message=TOOL_ID_TOO_LONG, model="gpt-4o", llm_provider="openai"
        )
        return {**kwargs, "mock_response": error}


async def test_hygiene_router_keeps_an_id_error_out_of_context_window_fallbacks(
    spy: Spy,
) -> None:
    """LiteLLM maps the id error to overflow; a bigger window would get the same request."""
    register(spy)
    litellm.callbacks.append(IdErrorMappedToOverflow())
    model_list = [
        {"model_name": "small", "litellm_params": {"model": "openai/gpt-4o", "mock_response": "x"}},
        {"model_name": "big", "litellm_params": {"model": CLAUDE, "mock_response": "fits"}},
    ]
    plain = Router(model_list=model_list, context_window_fallbacks=[{"small": ["big"]}])
    response = await plain.acompletion(model="small", messages=claude_history())
    assert response.choices[0].message.content == "fits"  # LiteLLM alone falls back
    router = HygieneRouter(model_list=model_list, context_window_fallbacks=[{"small": ["big"]}])
    with pytest.raises(BadRequestError) as raised:
        await router.acompletion(model="small", messages=claude_history())
    assert not isinstance(raised.value, ContextWindowExceededError)
    assert "not a context-window overflow" in str(raised.value)


async def test_streamed_answer_is_remembered_and_its_closing_chunk_stamped(spy: Spy) -> None:
    store = MemoryStore()
    register(spy, store=store)
    stream = await litellm.acompletion(
        model=MISTRAL,
        messages=[{"role": "user", "content": "hi"}],
        mock_response="Hi!",
        stream=True,
    )
    chunks = [chunk async for chunk in stream]
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == "Hi!"
    for _ in range(250):  # LiteLLM logs the assembled stream in the background
        await GLOBAL_LOGGING_WORKER.flush()
        if len(store):
            break
        await asyncio.sleep(0.02)
    assistant = {"role": "assistant", "content": "Hi!"}
    found = store.get(fingerprints(assistant))
    assert found is not None and found.model == "mistral-large-latest"

    # LiteLLM runs the streaming deployment hook on the closing chunk of provider streams.
    closing = ModelResponseStream(choices=[StreamingChoices(finish_reason="stop", delta=Delta())])
    callback = HygieneCallback()
    hooked = await callback.async_post_call_streaming_deployment_hook(
        {"model": MISTRAL}, closing, "acompletion"
    )
    assert hooked.choices[0].delta.model_dump()["litellm_hygiene"]["api"] == "mistral"


def test_hygiene_router_is_litellm_s_own_router() -> None:
    """LiteLLM 1.110 refuses subclasses of its Router: HygieneRouter makes none, anywhere."""
    model_list = [{"model_name": "small", "litellm_params": {"model": MISTRAL}}]
    router = HygieneRouter(model_list=model_list, context_window_fallbacks=[{"small": ["big"]}])
    assert type(router) is Router


REJECTED_REASONING = Reply(
    route=openai_responses.ROUTE,
    status=400,
    body={
        "error": {
            "message": "The encrypted content for item rs_01 could not be verified.",
            "type": "invalid_request_error",
            "param": None,
            "code": "invalid_encrypted_content",
        }
    },
)


async def test_a_bridged_request_litellm_resends_is_one_report_and_one_count(
    spy: Spy, monkeypatch: pytest.MonkeyPatch
) -> None:
    """LiteLLM 1.110 resends a /v1/messages request once without encrypted reasoning."""
    from litellm.anthropic_interface import messages as anthropic_messages

    from litellm_hygiene._integration._metrics import observe_request
    from tests.support.litellm_version import MESSAGES_BRIDGE_RESENDS_WITHOUT_ENCRYPTED_REASONING

    counted: list[dict[str, int]] = []

    def counting(model: str, outcome: str, seconds: float, changes: Any, restored: int) -> None:
        counted.append(dict(changes))
        observe_request(model, outcome, seconds, changes, restored)

    monkeypatch.setattr("litellm_hygiene._integration._prepare.observe_request", counting)
    callback = register(spy)
    history: list[dict[str, Any]] = [
        {"role": "user", "content": "What is 6*7?"},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "thinking",
                    "thinking": "Multiply.",
                    "signature": "litellm_encrypted_reasoning:gAAAAABpEncrypted",
                },
                {"type": "text", "text": "42."},
            ],
        },
        {"role": "user", "content": "And 6*8?"},
    ]
    answer = openai_responses.response(
        openai_responses.message("48.", seed="r"), model="gpt-5", seed="r"
    )
    with StandIn() as standin:
        standin.enqueue(REJECTED_REASONING, answer)
        call = anthropic_messages.acreate(
            model="openai/gpt-5",
            max_tokens=64,
            messages=history,
            api_base=standin.base_url + "/v1",
            api_key="sk-test",
        )
        if not MESSAGES_BRIDGE_RESENDS_WITHOUT_ENCRYPTED_REASONING.holds():
            with pytest.raises(BadRequestError):
                await call
            assert len(standin.received) == 1 and len(counted) == 1
            return
        response = await call
        assert len(standin.received) == 2  # two inner calls, one request
    assert isinstance(response, dict)
    assert response["content"][-1].get("text") == "48."
    assert len(counted) == 1
    assert len(callback.engine.reports) == 1
