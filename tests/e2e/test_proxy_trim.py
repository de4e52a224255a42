"""Trimming through a real ``litellm --config`` proxy, configured in ``callback_settings``.

The proxy's ``claude`` group falls back to ``mistral``, whose deployment declares a
small window in ``model_info``; hygiene runs with ``fit_to_context`` and a marker. What
the tests read: the bodies the stand-in received, the ``x-litellm-hygiene-trimmed``
header, and the error a client gets for a history that cannot fit.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import litellm
import openai
import pytest

from litellm_hygiene._standin import StandIn, anthropic, mistral
from litellm_hygiene._standin.rules import violations
from tests.support.proxy_server import (
    ProxyServer,
    chat,
    proxy_client,
    running_proxies,
    standin_config,
)

SMALL_WINDOW = 1500
MISTRAL = "mistral/mistral-large-latest"


@pytest.fixture(scope="module")
def stack() -> Iterator[tuple[StandIn, openai.OpenAI]]:
    with StandIn() as standin:
        config = standin_config(standin.base_url, fit_to_context=True, fit_marker=True)
        for group in config["model_list"]:
            if group["model_name"] == "mistral":
                group["model_info"] = {"max_input_tokens": SMALL_WINDOW}
        server = ProxyServer("trim", config)
        with running_proxies([server]), proxy_client(server) as client:
            yield standin, client


def session(rounds: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "system", "content": "You are a coding agent."}]
    for r in range(rounds):
        call_id = f"toolu_01Proxy{r:03d}QxWv7bL9mZ2nR4"
        out += [
            {"role": "user", "content": f"Task {r}: fix module {r}."},
            {
                "role": "assistant",
                "content": f"Reading module {r}.",
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": "read", "arguments": f'{{"path": "m{r}.py"}}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": call_id, "content": "def test(): pass\n" * 20},
        ]
    return out


def test_fallback_hop_is_fitted_to_its_window_and_says_so(
    stack: tuple[StandIn, openai.OpenAI],
) -> None:
    standin, client = stack
    standin.reset()
    standin.enqueue(anthropic.error(529, "overloaded_error", "Overloaded", seed="trim-proxy"))
    standin.enqueue(mistral.completion("Fixed.", model="mistral-large-latest", seed="trim-proxy"))
    history = session(12)
    answer = chat(client, "claude", history)
    to_claude, to_mistral = (r.body for r in standin.received)
    assert sum(m["role"] == "assistant" for m in to_claude["messages"]) == 12
    sent = to_mistral["messages"]
    assert litellm.token_counter(model=MISTRAL, messages=sent) <= SMALL_WINDOW
    assert violations("mistral", to_mistral) == []
    assert sent[1]["role"] == "system" and "omitted" in sent[1]["content"]
    trimmed = dict(
        pair.split("=") for pair in answer.headers["x-litellm-hygiene-trimmed"].split("; ")
    )
    assert trimmed["context_window"] == str(SMALL_WINDOW)
    assert int(trimmed["removed"]) > 0 and int(trimmed["tokens"]) <= SMALL_WINDOW
    assert answer.headers["x-litellm-hygiene-target"] == MISTRAL


def test_a_history_that_cannot_fit_is_a_context_window_error_for_the_client(
    stack: tuple[StandIn, openai.OpenAI],
) -> None:
    standin, client = stack
    standin.reset()
    history = [*session(2), {"role": "user", "content": "Summarise: " + "log " * 3000}]
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model="mistral", messages=history)  # type: ignore[arg-type]
    assert "ContextWindowExceededError" in str(caught.value)
    assert "minimal transcript" in str(caught.value)
    assert standin.received == [], "refused before anything was sent"
