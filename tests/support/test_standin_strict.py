"""The stand-in as a strict provider: what the real API refuses gets its 400, in its envelope.

LiteLLM maps each provider's error envelope to its exception classes, so the demo's
"LiteLLM alone" column shows what a user of that provider would see.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from litellm_hygiene._standin import StandIn, mistral
from litellm_hygiene._standin.rules import WireProblem, problems, violations
from litellm_hygiene._standin.strict import WORDING, provider_message, rejection, strict

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
        ("anthropic-messages", lambda body: body["error"]["message"]),
        ("bedrock-converse", lambda body: body["message"]),
        ("gemini", lambda body: body["error"]["message"]),
        ("openai-chat", lambda body: body["error"]["message"]),
        ("openai-responses", lambda body: body["error"]["message"]),
        ("mistral", lambda body: body["message"]),
    ],
)
def test_rejections_use_each_providers_envelope_and_report_the_first_problem(
    api: Any, envelope: Any
) -> None:
    first = WireProblem("stamp", "the litellm_hygiene stamp reached the wire")
    reply = rejection(api, [first, WireProblem("no_body", "another")])
    assert reply.status == 400
    assert envelope(reply.body) == "the litellm_hygiene stamp reached the wire"


@pytest.mark.parametrize(
    ("api", "body", "expected"),
    [
        (
            "anthropic-messages",
            {
                "messages": [
                    {"role": "user", "content": "q"},
                    {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1"}]},
                    {"role": "user", "content": "next"},
                ]
            },
            "messages.1: `tool_use` ids were found without `tool_result` blocks immediately "
            "after: toolu_1. Each `tool_use` block must have a corresponding `tool_result` "
            "block in the next message.",
        ),
        (
            "anthropic-messages",
            {
                "messages": [
                    {"role": "user", "content": "q"},
                    {"role": "assistant", "content": [{"type": "tool_use", "id": "a|b"}]},
                ]
            },
            "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'",
        ),
        (
            "mistral",
            ORPHAN_CHAT,
            "Tool call id was call_abc but must be a-z, A-Z, 0-9, with a length of 9.",
        ),
        (
            "openai-chat",
            {"messages": [{"role": "user", "content": "q"}, {"role": "tool", "tool_call_id": "x"}]},
            "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'",
        ),
        (
            "openai-responses",
            {"input": [{"type": "function_call", "call_id": "call_1"}]},
            "No tool output found for function call call_1.",
        ),
        (
            "bedrock-converse",
            {"messages": [{"role": "assistant", "content": [{"toolUse": {"toolUseId": "t"}}]}]},
            "Expected toolResult blocks at messages.1.content for the following Ids: t",
        ),
        (
            "mistral",  # a result with no call: Mistral counts calls and results
            {"messages": [{"role": "tool", "tool_call_id": "abcDEF123"}]},
            "Not the same number of function calls and responses",
        ),
    ],
)
def test_the_first_problem_is_worded_as_the_provider_words_it(
    api: Any, body: dict[str, Any], expected: str
) -> None:
    found = problems(api, body)
    assert [p.text for p in found] == violations(api, body)
    assert provider_message(api, found[0]) == expected


def test_every_wording_fills_in_from_a_problem() -> None:
    for (api, kind), template in WORDING.items():
        problem = WireProblem(kind, "text", index=3, part=1, subject="id_1")
        assert "{" not in provider_message(api, problem), (api, kind, template)


def test_a_strict_stand_in_answers_valid_bodies_and_rejects_the_rest() -> None:
    accept = mistral.completion("ok", model="mistral-large-latest", seed="s")
    with StandIn(respond=strict("mistral", accept)) as server:
        with httpx.Client(base_url=server.base_url) as client:
            bad = client.post("/v1/chat/completions", json=ORPHAN_CHAT)
            good = client.post(
                "/v1/chat/completions", json={"messages": [{"role": "user", "content": "q"}]}
            )
    assert bad.status_code == 400
    assert bad.json()["message"].startswith("Tool call id was call_abc but must be")
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
