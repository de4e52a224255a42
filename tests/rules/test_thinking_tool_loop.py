"""Switching to Claude with thinking on, in the middle of another model's tool loop.

Anthropic requires the last assistant turn of an unfinished tool loop to start with a
thinking block Claude signed (``Expected `thinking` or `redacted_thinking`, but found
`tool_use```). After another model's turn there is none: ``thinking_tool_loop`` sends
that one request without ``thinking`` / ``reasoning_effort``. Checked on the rule, on
the stand-in that judges the wire, and on the body LiteLLM sends through
``litellm.acompletion`` (the callback and the SDK wrapper), for four source models.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import litellm
import pytest
from litellm.exceptions import BadRequestError

from litellm_hygiene import (
    STAMP_KEY,
    HygieneCallback,
    sanitize_messages,
    validate_messages,
)
from litellm_hygiene._rules.thinking_tool_loop import asks_to_think
from litellm_hygiene._standin import StandIn
from litellm_hygiene._standin.rules import problems
from litellm_hygiene._standin.serve import answer
from litellm_hygiene._standin.strict import provider_message
from tests.support.cassettes import FAKE_AWS, warm_up_litellm
from tests.support.litellm_callbacks import restored_callbacks

CLAUDE = "anthropic/claude-sonnet-4-5"
CLAUDE_BEDROCK = "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0"
THINKING = {"type": "enabled", "budget_tokens": 2048}
SIGNATURE = "EqQBCkgIARABGAIiQLTj6vLNnKw7Lh0Jf2Q6CXQc0Hn1s8B8p6m0eSCe4H9dXw=="

_ARGS = '{"city": "Paris"}'


def _call(call_id: str, **extra: Any) -> dict[str, Any]:
    function = {"name": "get_weather", "arguments": _ARGS}
    return {"id": call_id, "type": "function", "function": function, **extra}


# The turn each source model leaves in the middle of a tool loop, as LiteLLM returns it.
SOURCES: dict[str, dict[str, Any]] = {
    "gpt": {"role": "assistant", "content": None, "tool_calls": [_call("call_Qp7rT2xLm9")]},
    "gemini": {
        "role": "assistant",
        "content": "Checking.",
        "tool_calls": [_call("call_8f2a91__thought__" + "Cq0BAR/Mhb" * 8)],
    },
    "deepseek": {
        "role": "assistant",
        "content": "",
        "reasoning_content": "The user wants the weather; call the tool.",
        "tool_calls": [_call("call_00_Yc3PqWk9mZ")],
    },
    "mistral": {"role": "assistant", "content": "", "tool_calls": [_call("KikbB849t")]},
}


def _loop(turn: dict[str, Any]) -> list[dict[str, Any]]:
    """A question, ``turn``'s call, and its result: the loop goes on with the next request."""
    call_id = turn["tool_calls"][0]["id"]
    return [
        {"role": "system", "content": "You are a weather assistant."},
        {"role": "user", "content": "Is it warm in Paris?"},
        turn,
        {"role": "tool", "tool_call_id": call_id, "content": "18°C, light rain"},
    ]


def _claude_turn(*, stamped: bool = True) -> dict[str, Any]:
    turn: dict[str, Any] = {
        "role": "assistant",
        "content": None,
        "thinking_blocks": [{"type": "thinking", "thinking": "Call it.", "signature": SIGNATURE}],
        "reasoning_content": "Call it.",
        "tool_calls": [_call("toolu_01A09q90qw90lq917835lq9")],
    }
    if stamped:
        turn[STAMP_KEY] = {
            "provider": "anthropic",
            "api": "anthropic-messages",
            "model": "claude-sonnet-4-5",
        }
    return turn


# -- the rule --------------------------------------------------------------------------


@pytest.mark.parametrize("source", sorted(SOURCES))
@pytest.mark.parametrize(
    "params",
    [
        {"thinking": THINKING},
        {"reasoning_effort": "low"},
        {"thinking": THINKING, "reasoning_effort": {"effort": "high"}},
    ],
)
@pytest.mark.parametrize("model", [CLAUDE, CLAUDE_BEDROCK, "vertex_ai/claude-sonnet-4-5"])
def test_another_models_open_loop_goes_to_claude_without_thinking(
    source: str, params: dict[str, Any], model: str
) -> None:
    messages = _loop(SOURCES[source])
    before = copy.deepcopy((messages, params))
    result = sanitize_messages(messages, model, params={**params, "temperature": 1})
    assert result.report.counts()["thinking_tool_loop"] == 1
    assert result.params == {"temperature": 1}
    assert set(result.dropped_params) == set(params)
    assert (messages, params) == before, "the caller's messages and parameters stay"
    again = sanitize_messages(result.messages, model, params=result.params)
    assert not again.report.changed and again.params == result.params, "a fixed point"
    violation = next(
        v
        for v in validate_messages(messages, model, params=params)
        if v.code == "thinking_tool_loop"
    )
    assert violation.index == 2
    assert violation.provider_error is not None
    assert "Expected `thinking` or `redacted_thinking`" in violation.provider_error


def test_the_wording_says_what_the_turn_starts_with_on_the_wire() -> None:
    """As LiteLLM sends the request: DeepSeek's reasoning_content is not sent to Claude."""
    found = {
        source: next(
            v.provider_error
            for v in validate_messages(_loop(turn), CLAUDE, params={"thinking": THINKING})
            if v.code == "thinking_tool_loop"
        )
        for source, turn in SOURCES.items()
    }
    assert "but found `tool_use`" in str(found["gpt"])
    assert "but found `text`" in str(found["gemini"])
    assert "but found `tool_use`" in str(found["deepseek"])
    assert str(found["gpt"]).startswith("messages.1.content.0.type: ")


def test_claudes_own_signed_thinking_keeps_thinking_on() -> None:
    messages = _loop(_claude_turn())
    result = sanitize_messages(messages, CLAUDE, params={"thinking": THINKING})
    assert result.params == {"thinking": THINKING} and not result.dropped_params
    assert "thinking_tool_loop" not in result.report.counts()
    assert not [
        v
        for v in validate_messages(messages, CLAUDE, params={"thinking": THINKING})
        if v.code == "thinking_tool_loop"
    ]


def test_redacted_thinking_first_is_claudes_own_thinking_too() -> None:
    turn = _claude_turn()
    turn["thinking_blocks"] = [{"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"}]
    result = sanitize_messages(_loop(turn), CLAUDE, params={"thinking": THINKING})
    assert not result.dropped_params


@pytest.mark.parametrize(
    ("source_model", "dropped"),
    [("anthropic/claude-opus-4-1", ("thinking",)), (CLAUDE, ())],
)
def test_a_signed_turn_of_another_claude_model_cannot_open_the_loop(
    source_model: str, dropped: tuple[str, ...]
) -> None:
    """A signature is the model's own: from another Claude model it goes, and thinking too."""
    messages = _loop(_claude_turn(stamped=False))
    result = sanitize_messages(
        messages, CLAUDE, params={"thinking": THINKING}, source_model=source_model
    )
    assert result.dropped_params == dropped


def test_an_unsigned_thinking_block_cannot_open_the_loop() -> None:
    turn = _claude_turn()
    turn["thinking_blocks"] = [{"type": "thinking", "thinking": "Call it.", "signature": ""}]
    result = sanitize_messages(_loop(turn), CLAUDE, params={"thinking": THINKING})
    assert result.dropped_params == ("thinking",)


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"thinking": {"type": "disabled"}},
        {"reasoning_effort": "none"},
        {"reasoning_effort": {"effort": "none"}},
        {"thinking": None},
        {"temperature": 0.2},
    ],
)
def test_no_thinking_asked_nothing_to_drop(params: dict[str, Any]) -> None:
    result = sanitize_messages(_loop(SOURCES["gpt"]), CLAUDE, params=params)
    assert result.params == params and not result.dropped_params
    assert "thinking_tool_loop" not in result.report.counts()


def test_a_finished_loop_keeps_thinking() -> None:
    """The last assistant turn answered in text: no loop is in progress."""
    messages = [
        *_loop(SOURCES["gpt"]),
        {"role": "assistant", "content": "18°C and rain: take a coat."},
        {"role": "user", "content": "Thanks. And Rome?"},
    ]
    result = sanitize_messages(messages, CLAUDE, params={"thinking": THINKING})
    assert not result.dropped_params


def test_a_user_turn_after_the_results_is_still_the_open_loop() -> None:
    """LiteLLM sends results and the user's text as one user message: the loop is open."""
    messages = [*_loop(SOURCES["gpt"]), {"role": "user", "content": "Also Rome, please."}]
    result = sanitize_messages(messages, CLAUDE, params={"thinking": THINKING})
    assert result.dropped_params == ("thinking",)


def test_an_interrupted_call_is_answered_and_still_goes_without_thinking() -> None:
    """The loop is open even when the result had to be synthesized (tool_pairing)."""
    messages = _loop(SOURCES["gpt"])[:-1]
    result = sanitize_messages(messages, CLAUDE, params={"thinking": THINKING})
    assert result.report.counts().keys() >= {"tool_pairing", "thinking_tool_loop"}


@pytest.mark.parametrize(
    "model",
    [
        "openai/gpt-4o",
        "gemini/gemini-2.5-pro",
        "mistral/mistral-large-latest",
        "deepseek/deepseek-reasoner",
        "bedrock/us.amazon.nova-pro-v1:0",
    ],
)
def test_other_targets_keep_their_parameters(model: str) -> None:
    params = {"thinking": THINKING, "reasoning_effort": "low"}
    result = sanitize_messages(_loop(SOURCES["gpt"]), model, params=params)
    assert result.params == params and not result.dropped_params


def test_without_params_the_rule_has_nothing_to_read() -> None:
    result = sanitize_messages(_loop(SOURCES["gpt"]), CLAUDE)
    assert "thinking_tool_loop" not in result.report.counts()
    assert result.params == {} and result.dropped_params == ()


def test_params_must_be_a_mapping() -> None:
    from litellm_hygiene import ConfigurationError

    with pytest.raises(ConfigurationError, match="params must be a mapping"):
        sanitize_messages(_loop(SOURCES["gpt"]), CLAUDE, params=["thinking"])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "value", "asks"),
    [
        ("thinking", {"type": "enabled", "budget_tokens": 1024}, True),
        ("thinking", {"type": "adaptive"}, True),
        ("thinking", {"type": "disabled"}, False),
        ("thinking", None, False),
        ("reasoning_effort", "minimal", True),
        ("reasoning_effort", "none", False),
        ("reasoning_effort", {"effort": "medium", "summary": "auto"}, True),
        ("reasoning_effort", {"summary": "auto"}, False),
    ],
)
def test_what_asks_claude_to_think(name: str, value: Any, asks: bool) -> None:
    assert asks_to_think(name, value) is asks


# -- the stand-in judges the wire alike ------------------------------------------------


def _anthropic_body(first: dict[str, Any], thinking: Any = THINKING) -> dict[str, Any]:
    tool_use = {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}
    content = [first, tool_use] if first != tool_use else [tool_use]
    return {
        "thinking": thinking,
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "q"}]},
            {"role": "assistant", "content": content},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1"}]},
        ],
    }


def test_the_standin_rejects_an_open_loop_that_does_not_start_with_thinking() -> None:
    tool_use = {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}
    (problem,) = problems("anthropic-messages", _anthropic_body(tool_use))
    assert provider_message("anthropic-messages", problem).startswith(
        "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
        "`tool_use`. When `thinking` is enabled, a final `assistant` message must start"
    )
    (problem,) = problems("anthropic-messages", _anthropic_body({"type": "text", "text": "x"}))
    assert "but found `text`" in provider_message("anthropic-messages", problem)
    signed = {"type": "thinking", "thinking": "t", "signature": SIGNATURE}
    assert problems("anthropic-messages", _anthropic_body(signed)) == []
    assert (
        problems("anthropic-messages", _anthropic_body({"type": "redacted_thinking", "data": "d"}))
        == []
    )
    assert problems("anthropic-messages", _anthropic_body(tool_use, thinking=None)) == []
    assert (
        problems("anthropic-messages", _anthropic_body(tool_use, thinking={"type": "disabled"}))
        == []
    )


def test_the_standin_judges_claude_on_bedrock_alike() -> None:
    body: dict[str, Any] = {
        "additionalModelRequestFields": {"thinking": THINKING},
        "messages": [
            {"role": "user", "content": [{"text": "q"}]},
            {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t", "name": "f"}}]},
            {"role": "user", "content": [{"toolResult": {"toolUseId": "t", "content": []}}]},
        ],
    }
    (problem,) = problems("bedrock-converse", body)
    assert problem.kind == "thinking_first"
    assert provider_message("bedrock-converse", problem).startswith(
        "The model returned the following errors: messages.1.content.0.type: Expected"
    )
    reasoning = {"reasoningContent": {"reasoningText": {"text": "t", "signature": "s"}}}
    body["messages"][1]["content"].insert(0, reasoning)
    assert problems("bedrock-converse", body) == []


# -- on the wire, through LiteLLM ------------------------------------------------------


@pytest.fixture(scope="module")
def standin() -> Iterator[StandIn]:
    warm_up_litellm()
    with StandIn(respond=answer) as server:
        yield server


TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]

CLAUDE_VERTEX = "vertex_ai/claude-sonnet-4-5"
VERTEX = {"vertex_project": "project", "vertex_location": "us-east5"}

_ROUTES: dict[str, tuple[str, dict[str, str]]] = {
    CLAUDE: ("", {}),
    CLAUDE_BEDROCK: ("", FAKE_AWS),
    CLAUDE_VERTEX: ("", VERTEX),
    "azure_ai/claude-sonnet-4-5": ("", {}),
}


@pytest.fixture(autouse=True)
def _vertex_token(vertex_token: None) -> None:
    """Every route here may be Vertex AI's (conftest's token, never fetched)."""


async def _send(standin: StandIn, model: str, messages: list[Any], **params: Any) -> Any:
    standin.reset()
    base, extra = _ROUTES[model]
    return await litellm.acompletion(
        model=model,
        messages=messages,
        api_base=standin.base_url + base,
        api_key="sk-test",
        num_retries=0,
        max_tokens=4096,
        tools=TOOLS,
        **extra,
        **params,
    )


def _thinking_sent(body: dict[str, Any]) -> bool:
    fields = body.get("additionalModelRequestFields") or {}
    return "thinking" in body or "thinking" in fields


_WIRE = [
    (model, source, params)
    for model in _ROUTES
    for source in sorted(SOURCES)
    for params in ({"thinking": THINKING}, {"reasoning_effort": "low"})
]


@pytest.mark.parametrize(("model", "source", "params"), _WIRE)
async def test_litellm_alone_is_rejected_and_hygiene_sends_it_without_thinking(
    standin: StandIn, model: str, source: str, params: dict[str, Any]
) -> None:
    messages = _loop(SOURCES[source])
    with restored_callbacks(empty=True):
        with pytest.raises(BadRequestError, match="Expected `thinking` or"):
            await _send(standin, model, messages, **params)
        assert _thinking_sent(standin.received[0].body)
        litellm.callbacks = [HygieneCallback(provenance_store="none")]
        response = await _send(standin, model, messages, **params)
    (request,) = standin.received
    assert not _thinking_sent(request.body), json.dumps(request.body)[:300]
    assert response.choices[0].message.content.startswith("Hello from the litellm-hygiene")
    report = response._hidden_params["litellm_hygiene"]
    assert report["changes"]["thinking_tool_loop"] == 1


async def test_claudes_own_loop_goes_with_thinking(standin: StandIn) -> None:
    with restored_callbacks(empty=True):
        litellm.callbacks = [HygieneCallback(provenance_store="none")]
        await _send(standin, CLAUDE, _loop(_claude_turn()), thinking=THINKING)
    (request,) = standin.received
    assert request.body["thinking"]["type"] == "enabled"
    assert request.body["messages"][1]["content"][0]["signature"] == SIGNATURE


async def test_the_sdk_wrapper_drops_thinking_too(standin: StandIn) -> None:
    from litellm_hygiene import acompletion

    with restored_callbacks(empty=True):
        response = await acompletion(
            CLAUDE,
            _loop(SOURCES["gpt"]),
            hygiene=HygieneCallback(provenance_store="none"),
            api_base=standin.base_url,
            api_key="sk-test",
            max_tokens=4096,
            tools=TOOLS,
            thinking=THINKING,
        )
    assert "thinking" not in standin.received[-1].body
    assert response._hidden_params["litellm_hygiene"]["changes"]["thinking_tool_loop"] == 1


def test_the_neutral_api_takes_the_parameters_too() -> None:
    from litellm_hygiene import Context, resolve_target, transform_messages
    from litellm_hygiene._openai._wire import OPENAI

    messages = tuple(OPENAI.decode(m, i) for i, m in enumerate(_loop(SOURCES["gpt"])))
    context = Context(messages=messages)
    target = resolve_target(CLAUDE)
    params = {"thinking": THINKING, "max_tokens": 4096}
    result = transform_messages(context, target, params=params)
    assert result.params == {"max_tokens": 4096} and result.dropped_params == ("thinking",)
    assert result.report.counts() == {"thinking_tool_loop": 1}
    assert result.context is context, "only the parameters changed"
    assert params["thinking"] == THINKING
    plain = transform_messages(context, target)
    assert plain.params == {} and not plain.report.changed


# -- the turn as LiteLLM sends it (review findings) ------------------------------------

BEDROCK_STAMP = {
    "provider": "bedrock",
    "api": "bedrock-converse",
    "model": "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
}
SIGNED = {"type": "thinking", "thinking": "Call it.", "signature": SIGNATURE}
REDACTED = {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"}


def _claude(**fields: Any) -> dict[str, Any]:
    turn = {**_claude_turn(), **fields}
    return {k: v for k, v in turn.items() if v is not ...}


def _claude_on_bedrock(**fields: Any) -> dict[str, Any]:
    """A turn of Claude on Bedrock: its own stamp and Bedrock's ``tooluse_`` ids."""
    return _claude(
        tool_calls=[_call("tooluse_kZJMlvQmRJ6eAyJE5GIl7Q")], **{STAMP_KEY: BEDROCK_STAMP}, **fields
    )


def _dropped(messages: list[Any], model: str = CLAUDE) -> tuple[str, ...]:
    """What the pipeline drops, checked against the validator and for a fixed point."""
    params = {"thinking": THINKING}
    result = sanitize_messages(messages, model, params=params)
    flagged = [
        v
        for v in validate_messages(messages, model, params=params)
        if v.code == "thinking_tool_loop"
    ]
    assert bool(flagged) is bool(result.dropped_params), "the validator agrees"
    again = sanitize_messages(result.messages, model, params=result.params)
    assert not again.report.changed
    return result.dropped_params


@pytest.mark.parametrize(
    ("turn", "model", "dropped"),
    [
        # Bedrock sends redacted thinking as nothing: the turn starts with toolUse.
        (_claude_on_bedrock(thinking_blocks=[REDACTED]), CLAUDE_BEDROCK, True),
        # Bedrock sorts signed reasoning first, whatever the content's order.
        (_claude_on_bedrock(content="Let me check."), CLAUDE_BEDROCK, False),
        (_claude_on_bedrock(), CLAUDE_BEDROCK, False),
        # A list holding a thinking part replaces thinking_blocks; redacted parts are not sent.
        (_claude(thinking_blocks=..., content=[REDACTED]), CLAUDE, True),
        (_claude(content=[{"type": "thinking", "thinking": "x", "signature": ""}]), CLAUDE, True),
        (_claude(content=[REDACTED, {"type": "text", "text": "x"}]), CLAUDE, True),
        (
            _claude(thinking_blocks=..., content=[SIGNED, {"type": "text", "text": "x"}]),
            CLAUDE,
            False,
        ),
        # An unsigned block before the signed one is left out: the signed one leads.
        (
            _claude(
                thinking_blocks=[{"type": "thinking", "thinking": "a", "signature": ""}, SIGNED]
            ),
            CLAUDE,
            False,
        ),
    ],
)
def test_the_turn_is_judged_as_litellm_sends_it(
    turn: dict[str, Any], model: str, dropped: bool
) -> None:
    assert bool(_dropped(_loop(turn), model)) is dropped


def test_a_turn_split_in_two_messages_is_one_turn_starting_with_its_thinking() -> None:
    """LiteLLM sends consecutive assistant messages as one turn, blocks in order."""
    stamp = _claude_turn()[STAMP_KEY]
    split = [
        {"role": "user", "content": "Is it warm in Paris?"},
        {
            "role": "assistant",
            "content": "Let me check.",
            "thinking_blocks": [SIGNED],
            STAMP_KEY: stamp,
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [_call("toolu_01A09q90qw90lq917835lq9")],
            STAMP_KEY: stamp,
        },
        {"role": "tool", "tool_call_id": "toolu_01A09q90qw90lq917835lq9", "content": "18°C"},
    ]
    assert _dropped(split) == ()
    # Text in a message of its own before Claude's signed turn would lead the turn
    # (LiteLLM alone is refused): hygiene merges the two, thinking first, and keeps it on.
    merged = [split[0], {"role": "assistant", "content": "Let me check."}, _claude_turn(), split[3]]
    params = {"thinking": THINKING}
    flagged = validate_messages(merged, CLAUDE, params=params)
    assert "thinking_tool_loop" in {v.code for v in flagged}
    result = sanitize_messages(merged, CLAUDE, params=params)
    assert result.report.counts() == {"consecutive_turns": 1}
    assert result.params == params


def test_an_assistant_turn_that_sends_nothing_does_not_close_the_loop() -> None:
    messages = [*_loop(SOURCES["gpt"]), {"role": "assistant", "content": ""}]
    assert _dropped(messages) == ("thinking",)


async def test_bedrock_redacted_thinking_goes_without_thinking_on_the_wire(
    standin: StandIn,
) -> None:
    """Releases differ here: 1.106 sends Bedrock no redacted thinking (LiteLLM alone is
    refused), 1.109 sends it as ``redactedContent``. The rule drops thinking on either,
    so what hygiene sends is accepted by both; read from the body the installed release
    sends."""
    messages = _loop(_claude_on_bedrock(thinking_blocks=[REDACTED]))
    with restored_callbacks(empty=True):
        refused = False
        try:
            await _send(standin, CLAUDE_BEDROCK, messages, thinking=THINKING)
        except BadRequestError as err:
            refused = True
            assert "Expected `thinking` or" in str(err)
        first = standin.received[-1].body["messages"][1]["content"][0]
        assert refused is ("reasoningContent" not in first), "refused exactly when left out"
        litellm.callbacks = [HygieneCallback(provenance_store="none")]
        await _send(standin, CLAUDE_BEDROCK, messages, thinking=THINKING)
    assert not _thinking_sent(standin.received[-1].body)
