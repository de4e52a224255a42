"""The stand-in as a strict provider: what the real API refuses gets its 400, in its envelope.

LiteLLM maps each provider's error envelope to its exception classes, so the demo's
"LiteLLM alone" column shows what a user of that provider would see.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from litellm_hygiene._standin import StandIn, mistral
from litellm_hygiene._standin.rules import violations
from litellm_hygiene._standin.strict import rejection, strict

ORPHAN_CHAT = {
    "messages": [
        {"role": "user", "content": "q"},
        {"role": "assistant", "tool_calls": [{"id": "call_abc"}]},
        {"role": "user", "content": "next"},
    ]
}


@pytest.mark.parametrize(
    ("api", "envelope"),
    [
        ("anthropic", lambda body: body["error"]["message"]),
        ("bedrock", lambda body: body["message"]),
        ("gemini", lambda body: body["error"]["message"]),
        ("openai-chat", lambda body: body["error"]["message"]),
        ("responses", lambda body: body["error"]["message"]),
        ("mistral", lambda body: body["message"]),
    ],
)
def test_rejections_use_each_providers_envelope(api: Any, envelope: Any) -> None:
    reply = rejection(api, ["call 'x' has no result", "another"])
    assert reply.status == 400
    assert envelope(reply.body) == "Invalid request: call 'x' has no result (and 1 more)"


def test_a_strict_stand_in_answers_valid_bodies_and_rejects_the_rest() -> None:
    accept = mistral.completion("ok", model="mistral-large-latest", seed="s")
    with StandIn(respond=strict("mistral", accept)) as server:
        with httpx.Client(base_url=server.base_url) as client:
            bad = client.post("/v1/chat/completions", json=ORPHAN_CHAT)
            good = client.post(
                "/v1/chat/completions", json={"messages": [{"role": "user", "content": "q"}]}
            )
    assert bad.status_code == 400
    assert "tool call id 'call_abc' is rejected" in bad.json()["message"]
    assert good.status_code == 200
    assert good.json()["choices"][0]["message"]["content"] == "ok"
    assert len(server.received) == 2


@pytest.mark.parametrize(
    ("call", "result"),
    [("functionCall", "functionResponse"), ("function_call", "function_response")],
)
def test_gemini_pairing_reads_both_spellings(call: str, result: str) -> None:
    """LiteLLM writes ``function_call``; a check reading only camelCase would pass anything."""
    orphan = {"contents": [{"role": "model", "parts": [{call: {"name": "f", "args": {}}}]}]}
    assert violations("gemini", orphan) == ["call 'f' has no result"]
    paired = {
        "contents": [
            *orphan["contents"],
            {"role": "user", "parts": [{result: {"name": "f", "response": {}}}]},
        ]
    }
    assert violations("gemini", paired) == []
