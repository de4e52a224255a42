"""The recording tools themselves: the stand-in server, the wire rules, the stored cassettes."""

from __future__ import annotations

import os
import threading
from typing import Any

import httpx
import pytest
import yaml

from litellm_hygiene._standin import StandIn, anthropic, mistral, route_of
from litellm_hygiene._standin.rules import contains, violations
from tests.support.cassettes import BASE_PATHS, CASSETTES, FAKE_AWS, REPLAY_ORIGIN

KEY_VARIABLES = (
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "OPENAI_API_KEY",
    "MISTRAL_API_KEY",
    "DEEPSEEK_API_KEY",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
)
DUMMY_KEYS = (
    *(f"test-{p}-key" for p in BASE_PATHS),
    FAKE_AWS["aws_access_key_id"],
    FAKE_AWS["aws_secret_access_key"],
)


def test_routes_are_the_paths_litellm_calls() -> None:
    assert route_of("/v1/messages") == "anthropic-messages"
    assert route_of("/v1beta/models/gemini-3-pro-preview:generateContent") == "gemini"
    assert route_of("/v1/chat/completions") == "chat-completions"
    assert route_of("/beta/chat/completions") == "chat-completions"
    assert route_of("/v1/responses") == "responses"
    assert route_of("/model/us.anthropic.claude-sonnet-4-5-v1%3A0/converse") == "bedrock"
    assert route_of("/v1/embeddings") is None


def test_stand_in_serves_queued_replies_in_order_and_logs_requests() -> None:
    threads = set(threading.enumerate())
    with StandIn() as server, httpx.Client(base_url=server.base_url) as client:
        assert server.base_url.startswith("http://127.0.0.1:")
        server.enqueue(mistral.overflow_error(), mistral.completion("ok", model="m", seed="s"))
        first = client.post("/v1/chat/completions", json={"model": "m", "messages": []})
        second = client.post("/v1/chat/completions", json={"model": "m", "messages": [1]})
        unqueued = client.post("/v1/messages", json={"model": "claude"})
        assert (first.status_code, second.status_code, unqueued.status_code) == (400, 200, 500)
        assert first.json()["code"] == "3051"
        assert second.json()["choices"][0]["message"]["content"] == "ok"
        assert "no reply queued" in unqueued.json()["error"]["message"]
        assert [r.body for r in server.received][:2] == [
            {"model": "m", "messages": []},
            {"model": "m", "messages": [1]},
        ]
        assert [r.path for r in server.unanswered] == ["/v1/messages"]
        assert server.pending() == {}
    # Only new threads count: another test's worker may finish meanwhile.
    assert set(threading.enumerate()) <= threads, "the stand-in left a thread behind"


def test_builders_are_deterministic() -> None:
    def build() -> Any:
        return anthropic.message(
            anthropic.thinking("hm", seed="x"),
            anthropic.tool_use("f", {}, seed="y"),
            model="claude",
            seed="z",
        ).body

    assert build() == build()
    assert build()["content"][1]["id"].startswith("toolu_01")
    assert build()["stop_reason"] == "tool_use"


@pytest.mark.parametrize(
    ("api", "body", "expected"),
    [
        (
            "mistral",
            {
                "messages": [
                    {"role": "user", "content": "q"},
                    {"role": "assistant", "tool_calls": [{"id": "call_abc"}]},
                    {"role": "tool", "tool_call_id": "call_abc", "content": "x"},
                ]
            },
            ["messages[1] tool call id 'call_abc' is rejected"],
        ),
        (
            "mistral",
            {
                "messages": [
                    {"role": "assistant", "content": "a"},
                    {"role": "system", "content": "s"},
                    {"role": "user", "content": "q"},
                    {"role": "assistant", "tool_calls": [{"id": "abcDEF123"}]},
                    {"role": "tool", "tool_call_id": "abcDEF123", "content": "x"},
                    {"role": "user", "content": "next"},
                    {"role": "assistant", "content": "b"},
                ]
            },
            [
                "messages[0]: the first turn is the assistant's",
                "messages[1]: Unexpected role 'system' after role 'assistant'",
                "messages[5]: Unexpected role 'user' after role 'tool'",
                "Expected last role User or Tool (or Assistant with prefix True) but got assistant",
            ],
        ),
        (
            "openai-chat",
            {
                "messages": [
                    {"role": "assistant", "tool_calls": [{"id": "a"}, {"id": "b"}]},
                    {"role": "tool", "tool_call_id": "a", "content": "x"},
                    {"role": "user", "content": "next"},
                ]
            },
            ["call 'b' has no result"],
        ),
        (
            "openai-chat",
            {"messages": [{"role": "assistant", "content": "x", "thinking_blocks": []}]},
            ["messages[0] carries response-only keys ['thinking_blocks']"],
        ),
        (
            "anthropic-messages",
            {
                "messages": [
                    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t"}]},
                    {
                        "role": "assistant",
                        "content": [{"type": "tool_use", "id": "call|x", "name": "f"}],
                    },
                ]
            },
            [
                "messages[1] tool_use id 'call|x' is rejected",
                "result 't' answers no open call",
                "call 'call|x' has no result",
            ],
        ),
        (
            "openai-responses",
            {"input": [{"type": "reasoning", "id": "rs_1"}, {"type": "message"}]},
            [],
        ),
        (
            "openai-responses",
            {"input": [{"type": "reasoning", "id": "rs_1"}]},
            ["input[0] reasoning item without its following item"],
        ),
        (
            "gemini",
            {"contents": [{"role": "model", "parts": [{"functionCall": {"name": "f"}}]}]},
            ["call 'f' has no result"],
        ),
        (
            "bedrock-converse",
            {"messages": [{"role": "user", "content": [{"text": "hi"}]}], "litellm_hygiene": {}},
            ["the litellm_hygiene stamp reached the wire"],
        ),
    ],
)
def test_wire_rules_catch_what_providers_reject(
    api: Any, body: dict[str, Any], expected: list[str]
) -> None:
    assert sorted(violations(api, body)) == sorted(expected)


def test_cassettes_hold_no_credentials() -> None:
    """Only content-type and Anthropic's headers are kept; no key anywhere, real or dummy."""
    files = sorted(CASSETTES.glob("*.yaml"))
    assert files, "no cassettes recorded"
    real_keys = [os.environ[name] for name in KEY_VARIABLES if len(os.environ.get(name, "")) > 8]
    for path in files:
        text = path.read_text()
        for secret in (*DUMMY_KEYS, *real_keys, "sk-ant-revoked", "Bearer", "AWS4-HMAC"):
            assert secret not in text, f"{path.name} holds {secret!r}"
        for interaction in yaml.safe_load(text)["interactions"]:
            request = interaction["request"]
            assert {h.lower() for h in request["headers"]} <= {
                "content-type",
                "anthropic-version",
                "anthropic-beta",
            }
            assert "key=" not in request["uri"]
            assert request["uri"].startswith(REPLAY_ORIGIN) or "127.0.0.1" not in request["uri"]


def test_no_stamp_reached_any_provider() -> None:
    """litellm_hygiene's stamp rides on response messages only, never on a request."""
    for path in sorted(CASSETTES.glob("*.yaml")):
        for interaction in yaml.safe_load(path.read_text())["interactions"]:
            body = interaction["request"].get("parsed_body")
            assert not contains(body, '"litellm_hygiene"'), path.name
