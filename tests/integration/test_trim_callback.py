"""Trimming in the callback, per deployment: each hop gets a transcript that fits it.

Upstream is LiteLLM's own ``mock_response`` (the hooks fire as for a real provider); a
spy registered after hygiene sees what LiteLLM hands to the provider. The recorded
Router fallback against the stand-in is in ``test_cassettes_trim.py``.
"""

from __future__ import annotations

import copy
from typing import Any

import litellm
import pytest
from litellm.exceptions import ContextWindowExceededError
from litellm.integrations.custom_logger import CustomLogger
from litellm.router import Router

import litellm_hygiene
from litellm_hygiene import ConfigurationError, HygieneCallback, HygieneOptions, validate_messages
from litellm_hygiene._integration._report import CallReport, headers_for
from litellm_hygiene._overflow._predict import _local_tokenizer
from litellm_hygiene._trim._fit import COUNTER_OPTIONS

pytestmark = pytest.mark.filterwarnings(
    "ignore:Items? .* (is|are) using the `ReadOnly` qualifier:UserWarning"
)

CLAUDE = "anthropic/claude-sonnet-4-5"
MISTRAL = "mistral/mistral-large-latest"
SIGNATURE = "RXVnQ2tZSUJoQUNHMmJ3VWVaTHNpZ25hdHVyZQ=="
STAMP = {"provider": "anthropic", "api": "anthropic-messages", "model": "claude-sonnet-4-5"}


class Spy(CustomLogger):
    """Records the kwargs each deployment call leaves the hooks with."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[dict[str, Any]] = []

    async def async_pre_call_deployment_hook(
        self, kwargs: dict[str, Any], call_type: Any
    ) -> dict[str, Any] | None:
        self.calls.append(dict(kwargs))
        return None


@pytest.fixture
def spy(isolated_litellm_callbacks: None) -> Spy:
    return Spy()


def register(spy: Spy, **options: Any) -> HygieneCallback:
    callback = HygieneCallback(**options)
    litellm.callbacks = [callback, spy]
    return callback


def count(model: str, messages: list[Any]) -> int:
    tokenizer = _local_tokenizer(model)
    return int(
        litellm.token_counter(
            model=model, messages=messages, custom_tokenizer=tokenizer, **COUNTER_OPTIONS
        )
    )


def claude_agent(rounds: int) -> list[dict[str, Any]]:
    """Claude's own tool loop: signed thinking, parallel calls; ends with results."""
    out: list[dict[str, Any]] = [{"role": "system", "content": "You are an agent."}]
    for r in range(rounds):
        out.append({"role": "user", "content": f"Task {r}: " + "do it well. " * 20})
        for e in range(2):
            ids = [f"toolu_01{r:03d}{e}{k}abcdef" for k in range(2)]
            out.append(
                {
                    "role": "assistant",
                    "content": None,
                    "thinking_blocks": [
                        {"type": "thinking", "thinking": "Plan.", "signature": SIGNATURE}
                    ],
                    "tool_calls": [
                        {
                            "id": i,
                            "type": "function",
                            "function": {"name": "read", "arguments": '{"path": "a.py"}'},
                        }
                        for i in ids
                    ],
                    "litellm_hygiene": dict(STAMP),
                }
            )
            out.extend({"role": "tool", "tool_call_id": i, "content": "x = 1\n" * 40} for i in ids)
    return out


async def test_trimming_is_off_by_default(spy: Spy) -> None:
    register(spy)
    history = claude_agent(6)
    small = {"max_input_tokens": 300}
    await litellm.acompletion(model=CLAUDE, messages=history, mock_response="ok", model_info=small)
    assert len(spy.calls[-1]["messages"]) == len(history)


async def test_the_window_options_apply_per_request(spy: Spy) -> None:
    callback = register(spy, window_max_messages=6)
    history = claude_agent(3)
    before = copy.deepcopy(history)
    response = await litellm.acompletion(model=CLAUDE, messages=history, mock_response="ok")
    sent = spy.calls[-1]["messages"]
    assert history == before
    assert sent[0] == history[0]
    assert validate_messages(sent, CLAUDE) == []
    report = response._hidden_params["litellm_hygiene"]
    # The last five would start with two results whose call was cut: the window keeps
    # [system, A, R, R], and the rules put a user turn before the assistant turn.
    assert report["trimmed"]["removed"] == len(history) - 4
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "tool"]
    assert sent[2]["tool_calls"] == history[-3]["tool_calls"]
    assert "thinking_blocks" not in sent[2], "its signed thinking is bound to the cut prefix"
    assert callback.stats["trimmed"] == 1

    register(spy, window_max_user_turns=1)
    await litellm.acompletion(model=CLAUDE, messages=history, mock_response="ok")
    sent = spy.calls[-1]["messages"]
    assert [m["role"] for m in sent if m["role"] == "user"] == ["user"]
    assert sent[1] == history[-7]


async def test_fit_to_context_fits_the_deployment_window(spy: Spy) -> None:
    register(spy, fit_to_context=True, fit_marker=True)
    history = claude_agent(6)
    window = count(CLAUDE, history) // 2
    response = await litellm.acompletion(
        model=CLAUDE,
        messages=history,
        mock_response="ok",
        model_info={"max_input_tokens": window},
        max_tokens=100,
    )
    sent = spy.calls[-1]["messages"]
    assert count(CLAUDE, sent) <= window - 100
    assert validate_messages(sent, CLAUDE) == []
    assert sent[1]["role"] == "system" and "omitted" in sent[1]["content"]
    report = response._hidden_params["litellm_hygiene"]["trimmed"]
    assert report["tokens"] == count(CLAUDE, sent)
    assert report["context_window"] == window
    assert report["removed"] == len(history) + 1 - len(sent)
    assert report["thinking_dropped"] > 0
    assert all("thinking_blocks" not in m for m in sent)


async def test_a_tool_loop_that_lost_its_thinking_goes_without_thinking(spy: Spy) -> None:
    register(spy, fit_to_context=True)
    history = claude_agent(6)  # ends with the results of Claude's last calls
    thinking = {"type": "enabled", "budget_tokens": 1024}
    await litellm.acompletion(
        model=CLAUDE,
        messages=history,
        mock_response="ok",
        model_info={"max_input_tokens": count(CLAUDE, history) - 1},
        thinking=thinking,
    )
    assert "thinking" not in spy.calls[-1]
    await litellm.acompletion(model=CLAUDE, messages=history, mock_response="ok", thinking=thinking)
    assert spy.calls[-1]["thinking"] == thinking, "nothing trimmed: thinking stays"


async def test_a_history_that_cannot_fit_is_refused_before_it_is_sent(spy: Spy) -> None:
    callback = register(spy, fit_to_context=True)
    history = [*claude_agent(2), {"role": "user", "content": "word " * 2000}]
    with pytest.raises(ContextWindowExceededError, match="minimal transcript"):
        await litellm.acompletion(
            model=CLAUDE,
            messages=history,
            mock_response="ok",
            model_info={"max_input_tokens": 1000},
        )
    assert spy.calls == [], "refused in hygiene's hook: nothing reached the provider"
    assert callback.stats["fit_rejected"] == 1


async def test_each_router_fallback_hop_gets_a_transcript_that_fits_it(spy: Spy) -> None:
    register(spy, fit_to_context=True)
    history: Any = claude_agent(6)
    small_window = count(MISTRAL, history) // 2
    router = Router(
        model_list=[
            {
                "model_name": "big",
                "litellm_params": {"model": CLAUDE, "mock_response": "litellm.InternalServerError"},
            },
            {
                "model_name": "small",
                "litellm_params": {"model": MISTRAL, "mock_response": "fits"},
                "model_info": {"max_input_tokens": small_window},
            },
        ],
        fallbacks=[{"big": ["small"]}],
        num_retries=0,
    )
    response = await router.acompletion(model="big", messages=history)
    assert response.choices[0].message.content == "fits"
    by_model = {call["model"]: call["messages"] for call in spy.calls}
    assert len(by_model[CLAUDE]) == len(history), "the big window needs no trimming"
    to_mistral = by_model[MISTRAL]
    assert count(MISTRAL, to_mistral) <= small_window
    assert validate_messages(to_mistral, MISTRAL) == []
    assert response._hidden_params["litellm_hygiene"]["trimmed"]["context_window"] == small_window


def test_options_from_proxy_settings() -> None:
    options = HygieneOptions.from_settings(
        {"window_max_messages": 40, "window_max_user_turns": "5", "fit_to_context": True}
    )
    assert options.window_max_messages == 40 and options.window_max_user_turns == 5
    assert options.fit_to_context and not options.fit_marker
    for bad in ({"window_max_messages": 0}, {"fit_to_context": "maybe"}, {"fit_to": True}):
        with pytest.raises(ConfigurationError):
            HygieneOptions.from_settings(bad)


def test_trimming_shows_in_the_headers() -> None:
    report = CallReport(target=CLAUDE, trimmed={"removed": 12, "thinking_dropped": 3})
    headers = headers_for(report, "x-litellm-hygiene")
    assert headers["x-litellm-hygiene-trimmed"] == "removed=12; thinking_dropped=3"
    assert "x-litellm-hygiene-trimmed" not in headers_for(CallReport(), "x-litellm-hygiene")
    assert CallReport.from_dict(report.as_dict()) == report
    assert litellm_hygiene.HIDDEN_PARAMS_KEY == "litellm_hygiene"


async def test_fitting_a_long_request_runs_off_the_event_loop(
    spy: Spy, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio

    from litellm_hygiene._integration import _request, _steps

    offloaded: list[str] = []
    real = asyncio.to_thread

    async def recording(function: Any, /, *args: Any, **kwargs: Any) -> Any:
        # The work goes through the collector's pause (_paused): name the work.
        work = args[1] if function is _steps._paused else function
        offloaded.append(work.__name__)
        return await real(function, *args, **kwargs)

    monkeypatch.setattr(asyncio, "to_thread", recording)
    history = claude_agent(40)
    assert _request.HEAVY_FIT_MESSAGES < len(history) < _request.HEAVY_MESSAGES
    register(spy)
    await litellm.acompletion(model=CLAUDE, messages=history, mock_response="ok")
    assert offloaded == [], "without fitting, a request this size stays on the loop"
    register(spy, fit_to_context=True)
    small = {"max_input_tokens": 2000}
    await litellm.acompletion(model=CLAUDE, messages=history, mock_response="ok", model_info=small)
    # With the in-process store there is nothing to await: the request is read, looked
    # up and fitted in one step, off the loop.
    assert offloaded == ["_prepare_here"]
    assert count(CLAUDE, spy.calls[-1]["messages"]) <= 2000
