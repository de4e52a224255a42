"""Recorded trimming: a Router fallback to a smaller window, and signed thinking on the wire.

Each scenario runs through LiteLLM with the callback registered (``fit_to_context``
on); the cassettes pin the exact bodies LiteLLM sent. Re-record against the stand-in
with ``LITELLM_HYGIENE_RECORD=standin``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import litellm
import pytest
from litellm.exceptions import ContextWindowExceededError
from litellm.router import Router

from litellm_hygiene import HygieneCallback
from litellm_hygiene._overflow._predict import _local_tokenizer
from litellm_hygiene._standin import StandIn, anthropic, mistral
from litellm_hygiene._standin.rules import contains, violations
from litellm_hygiene._trim._fit import COUNTER_OPTIONS
from tests.support.cassettes import (
    READONLY_WARNING,
    REPLAY_ORIGIN,
    Recording,
    offline,
    recording,
    registered,
    running_standin,
    standin_only,
    warm_up_litellm,
)
from tests.support.scenario import CLAUDE, CLAUDE_ID, CLAUDE_STAMP, THINKING

pytestmark = pytest.mark.filterwarnings(f"ignore:{READONLY_WARNING}:UserWarning")

MISTRAL = "mistral/mistral-large-latest"
SIGNATURE = "RXVnQ2tZSUJoQUNHMmJ3VWVaTHNpZ25hdHVyZQ" * 4 + "=="


@pytest.fixture(scope="module")
def standin() -> Iterator[StandIn | None]:
    warm_up_litellm()
    with running_standin() as server:
        yield server


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    offline(monkeypatch)


@pytest.fixture
def hygiene() -> Iterator[HygieneCallback]:
    with registered(HygieneCallback(fit_to_context=True)) as callback:
        yield callback


def count(model: str, messages: list[Any]) -> int:
    tokenizer = _local_tokenizer(model)
    return int(
        litellm.token_counter(
            model=model, messages=messages, custom_tokenizer=tokenizer, **COUNTER_OPTIONS
        )
    )


def claude_session(rounds: int) -> list[dict[str, Any]]:
    """A long session with Claude: signed thinking, parallel calls; ends with results."""
    out: list[dict[str, Any]] = [{"role": "system", "content": "You are a coding agent."}]
    for r in range(rounds):
        out.append({"role": "user", "content": f"Task {r}: fix the tests in module {r}."})
        ids = [f"toolu_01Trim{r:03d}{k}QxWv7bL9mZ2nR4" for k in range(2)]
        out.append(
            {
                "role": "assistant",
                "content": f"Reading the two files of module {r}.",
                "thinking_blocks": [
                    {"type": "thinking", "thinking": f"Module {r} first.", "signature": SIGNATURE}
                ],
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {
                            "name": "read_file",
                            "arguments": f'{{"path": "m{r}/{k}.py"}}',
                        },
                    }
                    for k, call_id in enumerate(ids)
                ],
                "litellm_hygiene": dict(CLAUDE_STAMP),
            }
        )
        out.extend(
            {"role": "tool", "tool_call_id": i, "content": "def test():\n    assert 1\n" * 12}
            for i in ids
        )
    return out


def deployment(wire: Recording, provider: Any, model: str, **params: Any) -> dict[str, Any]:
    return {"model": model, "max_retries": 0, **wire.kwargs(provider), **params}


@standin_only("the real APIs do not fail on demand with an overload")
async def test_router_fallback_to_a_smaller_window_gets_a_fitting_valid_body(
    standin: StandIn | None, hygiene: HygieneCallback
) -> None:
    """Claude is overloaded; the fallback, Mistral with a small window, gets what fits."""
    history: Any = claude_session(12)
    small_window = count(MISTRAL, history) // 3
    with recording("trim_router_fallback_to_small_window", standin) as wire:
        wire.script(anthropic.error(529, "overloaded_error", "Overloaded", seed="trim"))
        wire.script(mistral.completion("Fixed.", model="mistral-large-latest", seed="trim"))
        router = Router(
            model_list=[
                {
                    "model_name": "big",
                    "litellm_params": deployment(wire, "anthropic", CLAUDE, max_tokens=1024),
                },
                {
                    "model_name": "small",
                    "litellm_params": deployment(wire, "mistral", MISTRAL, max_tokens=512),
                    "model_info": {"max_input_tokens": small_window},
                },
            ],
            fallbacks=[{"big": ["small"]}],
            num_retries=0,
        )
        response = await router.acompletion(model="big", messages=history)

    to_claude, to_mistral = (r.body for r in wire.requests)
    turns = [m for m in to_claude["messages"] if m["role"] == "assistant"]
    assert len(turns) == 12, "Claude's window needs no trim"
    assert contains(to_claude, SIGNATURE), "untrimmed, same model: thinking replayed"
    sent = to_mistral["messages"]
    assert count(MISTRAL, sent) <= small_window - 512
    assert violations("mistral", to_mistral) == []
    users = [m["content"] for m in sent if m["role"] == "user"]
    assert sent[0] == history[0] and sent[1]["role"] == "user", "system, then a whole round"
    assert users[-1] == history[-4]["content"], "the latest task is kept"
    assert len(users) < 12, "the oldest rounds are dropped"
    assert not contains(to_mistral, SIGNATURE)
    report = response._hidden_params["litellm_hygiene"]
    assert report["target"] == MISTRAL
    assert report["trimmed"]["context_window"] == small_window
    # Counted on the transcript made valid for Mistral (which has bridge turns).
    assert report["trimmed"]["removed"] >= len(history) - len(sent)
    assert report["trimmed"]["tokens"] <= small_window - 512
    assert response.choices[0].message.content == "Fixed."


async def test_a_history_that_cannot_fit_is_refused_before_any_request(
    standin: StandIn | None, hygiene: HygieneCallback
) -> None:
    history: Any = [*claude_session(2), {"role": "user", "content": "Summarise: " + "log " * 3000}]
    if standin is not None:
        standin.reset()
    base = standin.base_url if standin is not None else REPLAY_ORIGIN
    router = Router(
        model_list=[
            {
                "model_name": "small",
                "litellm_params": {
                    "model": MISTRAL,
                    "api_base": base + "/v1",
                    "api_key": "test-mistral-key",
                    "max_retries": 0,
                },
                "model_info": {"max_input_tokens": 2000},
            }
        ],
        num_retries=0,
    )
    with pytest.raises(ContextWindowExceededError, match=r"needs \d+ input tokens"):
        await router.acompletion(model="small", messages=history)
    if standin is not None:
        assert standin.received == []
    assert hygiene.stats["fit_rejected"] == 1


async def test_signed_thinking_on_the_wire_after_trimming(
    standin: StandIn | None, hygiene: HygieneCallback
) -> None:
    """Untrimmed, Claude's own signed thinking is replayed; trimmed, it is not (its prefix
    changed), and a tool loop in progress that lost it goes without ``thinking``."""
    history = claude_session(8)
    window = count(CLAUDE, history) // 2 + 2048  # room for half, and the output
    small = {"model_info": {"max_input_tokens": window}}
    answered = [
        *history,
        {"role": "assistant", "content": "Done."},
        {"role": "user", "content": "Next?"},
    ]
    with recording("trim_signed_thinking_on_the_wire", standin) as wire:
        reply = anthropic.message(anthropic.text("Next."), model=CLAUDE_ID, seed="trim-1")
        await wire.acompletion(
            "anthropic", CLAUDE, history, reply, thinking=THINKING, max_tokens=2048
        )
        reply = anthropic.message(anthropic.text("Next."), model=CLAUDE_ID, seed="trim-2")
        await wire.acompletion(
            "anthropic", CLAUDE, history, reply, thinking=THINKING, max_tokens=2048, **small
        )
        reply = anthropic.message(anthropic.text("Next."), model=CLAUDE_ID, seed="trim-3")
        await wire.acompletion(
            "anthropic", CLAUDE, answered, reply, thinking=THINKING, max_tokens=2048, **small
        )

    whole, loop, new_turn = (r.body for r in wire.requests)
    assert whole["thinking"] == THINKING
    assert contains(whole, SIGNATURE)
    for body in (loop, new_turn):
        assert not contains(body, SIGNATURE), "bound to a prefix the trim changed"
        assert violations("anthropic-messages", body) == []
        assert len(body["messages"]) < len(whole["messages"])
    assert "thinking" not in loop, "its last turn lost its thinking: the loop goes without"
    assert new_turn["thinking"] == THINKING, "a new user turn needs no earlier thinking"
