"""The model families the demo switches its conversation to, and their stand-in answers.

One entry per wire protocol LiteLLM speaks to a different provider family: the same
families the wire-body tests pin (``tests/e2e/test_cassettes.py``), plus the model that
recorded the conversation, since even a same-model request breaks when a tool call
was interrupted. Each entry says how LiteLLM reaches the stand-in (the real API's base
path kept, so LiteLLM builds the URL it builds in production) and what the stand-in
answers a request it accepts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Literal

from .._standin import Reply, anthropic, bedrock, deepseek, gemini, mistral, openai_chat
from .._standin import openai_responses as responses
from .._standin.rules import WireApi

__all__ = ["ANSWER", "DEMO_TARGETS", "FAKE_AWS", "DemoTarget", "Route", "load_conversation"]

Route = Literal["chat", "messages", "responses"]
"""How the conversation is sent: ``litellm.acompletion``; as Claude Code sends it,
``litellm.anthropic.messages.acreate`` (``/v1/messages``); as Codex sends it,
``litellm.aresponses`` (``/v1/responses``)."""

ANSWER = "- Waterproof jacket\n- Warm sweater\n- Sunglasses"
"""What every stand-in model answers when it accepts the request."""

FAKE_AWS: dict[str, str] = {
    "aws_access_key_id": "AKIAIOSFODNN7EXAMPLE",
    "aws_secret_access_key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "aws_region_name": "us-east-1",
}
"""AWS's documented example credentials: LiteLLM signs Bedrock requests with them and
never looks for real ones (so the demo needs no AWS account and reads no ~/.aws)."""


@dataclass(frozen=True)
class DemoTarget:
    """One model the conversation is switched to.

    Attributes:
        label: The provider family, as a reader knows it.
        model: The LiteLLM model string.
        api: The wire protocol whose rules the stand-in applies.
        base_path: The real API's base path, appended to the stand-in's address.
        accept: The stand-in's answer to a request the real API would accept.
        kwargs: Further arguments of the call for this target.
        route: How the conversation is sent (in the shape of that route).
    """

    label: str
    model: str
    api: WireApi
    base_path: str
    accept: Reply
    kwargs: dict[str, Any] = field(default_factory=dict)
    route: Route = "chat"


_CLAUDE = "claude-sonnet-4-5-20250929"

DEMO_TARGETS: tuple[DemoTarget, ...] = (
    DemoTarget(
        "Anthropic (the same Claude)",
        f"anthropic/{_CLAUDE}",
        "anthropic-messages",
        "",
        anthropic.message(anthropic.text(ANSWER), model=_CLAUDE, seed="demo"),
        {"thinking": {"type": "enabled", "budget_tokens": 1024}, "max_tokens": 2048},
    ),
    DemoTarget(
        "Bedrock Converse (Claude)",
        f"bedrock/converse/us.anthropic.{_CLAUDE}-v1:0",
        "bedrock-converse",
        "",
        bedrock.converse(bedrock.text(ANSWER)),
        # Thinking on, as for Claude above: the recorded turns are another deployment's,
        # so the open tool loop's last turn cannot start with Claude's signed thinking.
        {**FAKE_AWS, "thinking": {"type": "enabled", "budget_tokens": 1024}, "max_tokens": 2048},
    ),
    DemoTarget(
        "OpenAI Chat",
        "openai/gpt-4o",
        "openai-chat",
        "/v1",
        openai_chat.completion(ANSWER, model="gpt-4o-2024-08-06", seed="demo"),
    ),
    DemoTarget(
        "OpenAI Responses",
        "openai/responses/gpt-5",
        "openai-responses",
        "/v1",
        responses.response(
            responses.message(ANSWER, seed="demo"), model="gpt-5-2025-08-07", seed="demo"
        ),
    ),
    DemoTarget(
        "Gemini 2.5",
        "gemini/gemini-2.5-flash",
        "gemini",
        "/v1beta",
        gemini.generate_content(gemini.text(ANSWER), model_version="gemini-2.5-flash", seed="g25"),
    ),
    DemoTarget(
        "Gemini 3",
        "gemini/gemini-3-pro-preview",
        "gemini",
        "/v1beta",
        gemini.generate_content(
            gemini.text(ANSWER), model_version="gemini-3-pro-preview", seed="d"
        ),
    ),
    DemoTarget(
        "Mistral",
        "mistral/mistral-large-latest",
        "mistral",
        "/v1",
        mistral.completion(ANSWER, model="mistral-large-latest", seed="demo"),
    ),
    DemoTarget(
        "DeepSeek",
        "deepseek/deepseek-chat",
        "openai-chat",
        "/beta",
        deepseek.completion(ANSWER, model="deepseek-chat", seed="demo"),
    ),
    DemoTarget(
        "Claude Code session to Claude on Bedrock (/v1/messages)",
        f"bedrock/us.anthropic.{_CLAUDE}-v1:0",
        "anthropic-messages",
        "",
        anthropic.message(anthropic.text(ANSWER), model=_CLAUDE, seed="cc"),
        {**FAKE_AWS, "thinking": {"type": "enabled", "budget_tokens": 1024}, "max_tokens": 2048},
        route="messages",
    ),
    DemoTarget(
        "Codex session to GPT-5 (/v1/responses)",
        "openai/gpt-5",
        "openai-responses",
        "/v1",
        responses.response(
            responses.message(ANSWER, seed="codex"), model="gpt-5-2025-08-07", seed="codex"
        ),
        route="responses",
    ),
)
"""Every family the demo visits, in the order it prints them; the last two send the
conversation as a coding agent does, on LiteLLM's routes for Claude Code and Codex."""


def load_conversation() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The embedded conversation: ``(messages, tools)``, fresh objects on every call.

    Built for the project in the exact shape LiteLLM hands a client after Claude answers
    (``message.model_dump()``: ``thinking_blocks`` with signatures, ``reasoning_content``,
    ``provider_specific_fields``, ``toolu_`` ids): a user turn with an image, two
    parallel tool calls and their results, an answer, and a tool call the user
    interrupted before it returned.
    """
    text = resources.files(__package__).joinpath("conversation.json").read_text("utf-8")
    data = json.loads(text)
    return data["messages"], data["tools"]
