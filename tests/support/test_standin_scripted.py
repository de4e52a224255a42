"""The stand-in's Anthropic system-message rule and its scripted mode, without a client.

``test_real_clients.py`` drives the real CLIs through the scripted stand-in; these pin
what it does on its own: which Claude models take ``role: "system"`` inside ``messages``
and where, the tool loop each route plays, its streams' framing, and Gemini's context
cache judged as one history with the request that uses it.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from botocore.eventstream import EventStreamBuffer  # type: ignore[import-untyped]

from litellm_hygiene._standin import ReceivedRequest, route_of
from litellm_hygiene._standin.rules import accepts_system_messages, problems
from litellm_hygiene._standin.scripted import Script, Scripted
from litellm_hygiene._standin.strict import judge, provider_message

SYSTEM = {"role": "system", "content": "Available agent types for the Agent tool: ..."}
USER = {"role": "user", "content": "hi"}
CALL = {
    "role": "assistant",
    "content": [{"type": "tool_use", "id": "toolu_01", "name": "Bash", "input": {}}],
}
RESULT = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01"}]}


@pytest.mark.parametrize(
    ("model", "accepted"),
    [
        ("claude-opus-4-8", True),
        ("claude-opus-4-8-20261105", True),
        ("claude-opus-5", True),
        ("claude-sonnet-5", True),
        ("claude-haiku-5-1", True),
        ("us.anthropic.claude-opus-4-8-v1:0", True),
        ("claude-opus-4-7", False),
        ("claude-sonnet-4-5-20250929", False),
        ("claude-haiku-4-5-20251001", False),
        ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", False),
        ("claude-3-7-sonnet-20250219", False),
        ("gpt-5", False),
    ],
)
def test_which_claude_models_take_system_messages(model: str, accepted: bool) -> None:
    assert accepts_system_messages(model) is accepted


def _said(model: str, messages: list[Any]) -> list[str]:
    request = ReceivedRequest("POST", "/v1/messages", "anthropic-messages", {}, {})
    body = {"model": model, "messages": messages}
    found = judge("anthropic-messages", ReceivedRequest(**{**request.__dict__, "body": body}))
    return [provider_message("anthropic-messages", p) for p in found]


@pytest.mark.parametrize(
    ("model", "messages", "expected"),
    [
        ("claude-opus-4-8", [USER, SYSTEM], []),
        ("claude-opus-4-8", [USER, CALL, RESULT, SYSTEM], []),
        (
            "claude-opus-4-8",
            [SYSTEM, USER],
            ["messages.0: use the top-level 'system' parameter for the initial system prompt"],
        ),
        (
            "claude-opus-4-8",
            [USER, CALL, SYSTEM, RESULT],
            ["messages.2: a `system` message must immediately follow a `user` message"],
        ),
        (
            "claude-sonnet-4-5-20250929",
            [USER, SYSTEM],
            ["messages.1.role: Input should be 'user' or 'assistant'"],
        ),
    ],
)
def test_system_messages_are_placed_as_anthropic_requires(
    model: str, messages: list[Any], expected: list[str]
) -> None:
    said = _said(model, messages)
    assert said[: len(expected)] == expected
    if not expected:
        assert said == []


def test_bedrock_invoke_names_the_model_in_its_path() -> None:
    path = "/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke"
    body = {"anthropic_version": "bedrock-2023-05-31", "messages": [USER, SYSTEM]}
    found = judge("anthropic-messages", ReceivedRequest("POST", path, route_of(path), {}, body))
    assert [p.kind for p in found] == ["system_role"]
    assert problems("anthropic-messages", body, "us.anthropic.claude-opus-4-8-v1:0") == []


def _request(path: str, body: Any, method: str = "POST") -> ReceivedRequest:
    return ReceivedRequest(method, path, route_of(path), {}, body)


BASH = {"Bash": {"command": "echo hi"}}


def test_a_tool_loop_on_the_anthropic_route() -> None:
    scripted = Scripted(Script(calls=BASH))
    tools = [{"name": "Read"}, {"name": "Bash"}]
    first: dict[str, Any] = {"model": "claude-opus-4-8", "messages": [USER], "tools": tools}
    first["thinking"] = {"type": "adaptive"}
    called = scripted(_request("/v1/messages", first)).body["content"]
    assert [b["type"] for b in called] == ["thinking", "tool_use"]
    assert called[1]["id"].startswith("toolu_01") and called[1]["name"] == "Bash"
    closing = {**first, "messages": [USER, CALL, RESULT], "thinking": {"type": "disabled"}}
    answered = scripted(_request("/v1/messages", closing)).body["content"]
    assert answered == [{"type": "text", "text": "Done: the tool ran."}]
    assert [v.outcome for v in scripted.verdicts] == ["call", "text"]


def test_an_overloaded_model_answers_a_tool_result_with_529() -> None:
    scripted = Scripted(Script(calls=BASH, overloaded=frozenset({"claude-opus-4-8"})))
    body = {"model": "claude-opus-4-8", "messages": [USER, CALL, RESULT]}
    reply = scripted(_request("/v1/messages", body))
    assert reply.status == 529 and reply.body["error"]["type"] == "overloaded_error"


def test_a_rejected_request_gets_the_providers_400_and_is_logged() -> None:
    scripted = Scripted(Script(calls=BASH))
    body = {"model": "mistral-large-latest", "messages": [USER, _chat_call("toolu_01x")]}
    reply = scripted(_request("/v1/chat/completions", body))
    assert reply.status == 400
    assert scripted.verdicts[0].outcome == "rejected" and scripted.verdicts[0].problems


def _chat_call(call_id: str) -> Any:
    function = {"name": "Bash", "arguments": "{}"}
    return {"role": "assistant", "tool_calls": [{"id": call_id, "function": function}]}


def _frames(reply: Any) -> bytes:
    return b"".join(reply.frames())


def test_a_mistral_stream_calls_with_a_nine_character_id() -> None:
    scripted = Scripted(Script(calls=BASH))
    tools = [{"type": "function", "function": {"name": "Bash"}}]
    body = {"model": "mistral-large-latest", "messages": [USER], "tools": tools, "stream": True}
    wire = _frames(scripted(_request("/v1/chat/completions", body))).decode()
    assert wire.endswith("data: [DONE]\n\n")
    chunks = [json.loads(line[6:]) for line in wire.split("\n\n") if line[6:7] == "{"]
    calls = [c for chunk in chunks for c in chunk["choices"][0]["delta"].get("tool_calls", [])]
    assert len(calls[0]["id"]) == 9 and calls[0]["id"].isalnum()
    assert "".join(c["function"]["arguments"] for c in calls) == '{"command": "echo hi"}'


def test_gemini_streams_a_signed_call_and_judges_its_cache_as_one_history() -> None:
    scripted = Scripted(Script(calls=BASH))
    base = "/v1beta/models/gemini-2.5-pro"
    tools = [{"functionDeclarations": [{"name": "Bash"}]}]
    call = {"role": "model", "parts": [{"functionCall": {"name": "Bash", "args": {}}}]}
    cached = {"model": "models/gemini-2.5-pro", "displayName": "k", "tools": tools}
    cached["contents"] = [{"role": "user", "parts": [{"text": "hi"}]}, call]
    assert scripted(_request(base + ":cachedContents", None, "GET")).body == {"cachedContents": []}
    name = scripted(_request(base + ":cachedContents", cached)).body["name"]
    listed = scripted(_request(base + ":cachedContents", None, "GET")).body["cachedContents"]
    assert [c["name"] for c in listed] == [name]
    # The cached turns end on an open call: a request without its answer is rejected ...
    later = {"cachedContent": name, "contents": [{"role": "user", "parts": [{"text": "go"}]}]}
    assert scripted(_request(base + ":streamGenerateContent?alt=sse", later)).status == 400
    # ... and a fresh turn gets a signed call, streamed as data-only events.
    fresh = {"contents": [{"role": "user", "parts": [{"text": "go"}]}], "tools": tools}
    wire = _frames(scripted(_request(base + ":streamGenerateContent?alt=sse", fresh)))
    assert wire.startswith(b"data: {") and b"event:" not in wire
    part = json.loads(wire[6:])["candidates"][0]["content"]["parts"][0]
    assert part["functionCall"]["name"] == "Bash" and part["thoughtSignature"]


def test_claude_on_bedrock_streams_an_aws_event_stream() -> None:
    scripted = Scripted(Script(calls=BASH))
    path = "/model/us.anthropic.claude-opus-4-8-v1:0/invoke-with-response-stream"
    body = {"messages": [USER], "tools": [{"name": "Bash"}]}
    buffer = EventStreamBuffer()
    buffer.add_data(_frames(scripted(_request(path, body))))
    events = [json.loads(base64.b64decode(json.loads(m.payload)["bytes"])) for m in buffer]
    assert events[0]["type"] == "message_start" and events[-1]["type"] == "message_stop"
    started = [e["content_block"] for e in events if e["type"] == "content_block_start"]
    assert [b["type"] for b in started] == ["tool_use"]
