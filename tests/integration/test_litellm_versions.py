"""The wire facts that differ between LiteLLM releases, pinned per release.

Each :class:`~tests.support.litellm_version.Change` is read off the body the installed release
sends to the local stand-in, so the same test pins the old behaviour on the ``dev``
extra's release and the new one on the newest release CI installs. The table of first
releases per line is pinned too: it was found in each release's source.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import litellm
import pytest
from litellm.exceptions import BadRequestError

from litellm_hygiene._standin import Reply, StandIn, anthropic, gemini, openai_responses
from tests.support.cassettes import READONLY_WARNING, warm_up_litellm
from tests.support.litellm_callbacks import restored_callbacks
from tests.support.litellm_version import (
    ANTHROPIC_SERVER_TOOL_CALLS_APART,
    CASSETTE_RELEASE,
    CHANGES,
    FACTS,
    GEMINI_3_NO_DEFAULT_TEMPERATURE,
    GEMINI_RESENDS_REJECTED_THOUGHT_SIGNATURES,
    MESSAGES_BRIDGE_RESENDS_WITHOUT_ENCRYPTED_REASONING,
    MESSAGES_TO_ANTHROPIC_ON_RUST_RUNS_THE_DEPLOYMENT_HOOK,
    RESPONSES_SYSTEM_AS_INPUT,
    RESPONSES_SYSTEM_AS_INPUT_WHEN_NOT_STORED,
    ROUTER_REFUSES_SUBCLASSES,
    Change,
    Fact,
    Release,
    UnknownRelease,
    recorded_as_installed,
)

pytestmark = pytest.mark.filterwarnings(f"ignore:{READONLY_WARNING}:UserWarning")

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
SYSTEM = "Be brief."
HELLO = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "Hi."}]


def test_the_release_check_runs_tests_that_exist_and_ci_runs_it() -> None:
    from tests.support import litellm_release_check as check

    root = PYPROJECT.parent
    for pattern in check.NEWEST_TESTS:
        assert list(root.glob(pattern)), pattern
    assert (
        "python3 -m tests.support.litellm_release_check newest"
        in (root / ".ci" / "run").read_text()
    )
    assert check._OUTCOME.match("FAILED tests/test_x.py::test_y[a] - boom")


def test_the_cassettes_release_is_the_dev_extras_pin() -> None:
    pins = re.findall(r'"litellm\[proxy\]==([0-9.]+)"', PYPROJECT.read_text())
    assert [tuple(int(p) for p in pin.split(".")) for pin in pins] == [CASSETTE_RELEASE]


@pytest.mark.parametrize("change", CHANGES, ids=lambda c: c.what[:40])
def test_every_change_is_known_for_the_installed_release(change: Change) -> None:
    change.holds()  # raises UnknownRelease for a line nobody looked up
    assert not change.holds(CASSETTE_RELEASE)


@pytest.mark.parametrize("fact", FACTS, ids=lambda f: f.what[:40])
def test_every_fact_is_known_for_the_installed_release(fact: Fact) -> None:
    fact.holds()  # raises UnknownRelease for a line nobody looked up


@pytest.mark.parametrize(
    ("change", "release", "holds"),
    [
        (GEMINI_3_NO_DEFAULT_TEMPERATURE, (1, 106, 2), False),
        (GEMINI_3_NO_DEFAULT_TEMPERATURE, (1, 106, 12), False),
        (GEMINI_3_NO_DEFAULT_TEMPERATURE, (1, 108, 0), True),
        (GEMINI_3_NO_DEFAULT_TEMPERATURE, (1, 109, 3), True),
        (RESPONSES_SYSTEM_AS_INPUT, (1, 106, 10), False),
        (RESPONSES_SYSTEM_AS_INPUT, (1, 106, 11), True),
        (RESPONSES_SYSTEM_AS_INPUT, (1, 108, 7), False),
        (RESPONSES_SYSTEM_AS_INPUT, (1, 108, 11), False),
        (RESPONSES_SYSTEM_AS_INPUT, (1, 108, 12), True),
        (RESPONSES_SYSTEM_AS_INPUT, (1, 109, 1), False),
        (RESPONSES_SYSTEM_AS_INPUT, (1, 109, 2), True),
        (RESPONSES_SYSTEM_AS_INPUT, (1, 110, 0), False),
        (RESPONSES_SYSTEM_AS_INPUT, (1, 110, 1), False),
        (RESPONSES_SYSTEM_AS_INPUT, (1, 110, 2), True),
        (RESPONSES_SYSTEM_AS_INPUT_WHEN_NOT_STORED, (1, 109, 2), True),
        (RESPONSES_SYSTEM_AS_INPUT_WHEN_NOT_STORED, (1, 110, 0), False),
        (RESPONSES_SYSTEM_AS_INPUT_WHEN_NOT_STORED, (1, 110, 1), True),
        (RESPONSES_SYSTEM_AS_INPUT_WHEN_NOT_STORED, (1, 110, 2), True),
        (GEMINI_3_NO_DEFAULT_TEMPERATURE, (1, 110, 0), True),
        (ROUTER_REFUSES_SUBCLASSES, (1, 109, 3), False),
        (ROUTER_REFUSES_SUBCLASSES, (1, 110, 0), True),
        (MESSAGES_BRIDGE_RESENDS_WITHOUT_ENCRYPTED_REASONING, (1, 109, 3), False),
        (MESSAGES_BRIDGE_RESENDS_WITHOUT_ENCRYPTED_REASONING, (1, 110, 0), True),
        (GEMINI_RESENDS_REJECTED_THOUGHT_SIGNATURES, (1, 109, 3), False),
        (GEMINI_RESENDS_REJECTED_THOUGHT_SIGNATURES, (1, 110, 0), True),
        (ANTHROPIC_SERVER_TOOL_CALLS_APART, (1, 109, 3), False),
        (ANTHROPIC_SERVER_TOOL_CALLS_APART, (1, 110, 0), True),
        (MESSAGES_TO_ANTHROPIC_ON_RUST_RUNS_THE_DEPLOYMENT_HOOK, (1, 106, 2), True),
        (MESSAGES_TO_ANTHROPIC_ON_RUST_RUNS_THE_DEPLOYMENT_HOOK, (1, 110, 2), True),
    ],
)
def test_the_first_release_of_each_line(change: Fact, release: Release, holds: bool) -> None:
    assert change.holds(release) is holds


@pytest.mark.parametrize("release", [(1, 107, 0), (1, 111, 0), (1, 105, 9)])
def test_a_line_nobody_checked_is_an_error_not_a_guess(release: Release) -> None:
    with pytest.raises(UnknownRelease, match=r"look it up"):
        GEMINI_3_NO_DEFAULT_TEMPERATURE.holds(release)


def test_the_rewrites_turn_an_old_body_into_the_new_one() -> None:
    old_gemini = {"contents": [], "generationConfig": {"temperature": 1.0}}
    kept = {"contents": [], "generationConfig": {"temperature": 1.0, "max_output_tokens": 8}}
    assert GEMINI_3_NO_DEFAULT_TEMPERATURE.rewrite(old_gemini) == {"contents": []}
    assert GEMINI_3_NO_DEFAULT_TEMPERATURE.rewrite(kept) == {
        "contents": [],
        "generationConfig": {"max_output_tokens": 8},
    }
    assert old_gemini == {"contents": [], "generationConfig": {"temperature": 1.0}}
    user = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "q"}]}
    old_responses = {"model": "gpt-5", "instructions": SYSTEM, "input": [user]}
    assert RESPONSES_SYSTEM_AS_INPUT.rewrite(old_responses) == {
        "model": "gpt-5",
        "input": [
            {
                "type": "message",
                "role": "system",
                "content": [{"type": "input_text", "text": SYSTEM}],
            },
            user,
        ],
    }


def test_a_body_no_change_concerns_is_returned_as_it_is() -> None:
    body = {"model": "gpt-4o", "messages": HELLO}
    assert recorded_as_installed("/v1/chat/completions", body) is body
    gemini_25 = {"generationConfig": {"temperature": 1.0}}
    assert recorded_as_installed("/v1beta/models/gemini-2.5-pro:generateContent", gemini_25) is (
        gemini_25
    )


@pytest.fixture(scope="module")
def standin() -> Iterator[StandIn]:
    warm_up_litellm()
    with StandIn() as server:
        yield server


async def _sent(
    server: StandIn, model: str, base: str, reply: Reply, **extra: Any
) -> tuple[str, Any]:
    """The path and body LiteLLM sends for :data:`HELLO` (no callback registered)."""
    server.reset()
    server.enqueue(reply)
    with restored_callbacks(empty=True):
        await litellm.acompletion(
            model=model,
            messages=HELLO,
            api_base=server.base_url + base,
            api_key="sk-test",
            num_retries=0,
            max_retries=0,
            **extra,
        )
    assert len(server.received) == 1
    request = server.received[0]
    return request.path, request.body


async def test_gemini_3_default_temperature(standin: StandIn) -> None:
    reply = gemini.generate_content(
        gemini.text("Hello!", seed="v"), model_version="gemini-3-pro-preview", seed="v"
    )
    path, body = await _sent(standin, "gemini/gemini-3-pro-preview", "/v1beta", reply)
    assert GEMINI_3_NO_DEFAULT_TEMPERATURE.applies(path, body)
    temperature = body.get("generationConfig", {}).get("temperature")
    if GEMINI_3_NO_DEFAULT_TEMPERATURE.holds():  # 1.108.0 and newer
        assert temperature is None
    else:
        assert temperature == 1.0


async def test_responses_system_message(standin: StandIn) -> None:
    reply = openai_responses.response(
        openai_responses.message("Hello!", seed="v"), model="gpt-5", seed="v"
    )
    path, body = await _sent(standin, "openai/responses/gpt-5", "/v1", reply)
    system = {
        "type": "message",
        "role": "system",
        "content": [{"type": "input_text", "text": SYSTEM}],
    }
    if RESPONSES_SYSTEM_AS_INPUT.holds():  # 1.106.11, 1.108.12, 1.109.2 and newer
        assert "instructions" not in body
        assert body["input"][0] == system
    else:
        assert body["instructions"] == SYSTEM
        assert system not in body["input"]
        assert RESPONSES_SYSTEM_AS_INPUT.applies(path, body)


async def test_responses_system_message_when_not_stored(standin: StandIn) -> None:
    """1.110.1 moves the system message into the input only for ``store=False``."""
    reply = openai_responses.response(
        openai_responses.message("Hello!", seed="v"), model="gpt-5", seed="v"
    )
    _, body = await _sent(standin, "openai/responses/gpt-5", "/v1", reply, store=False)
    if RESPONSES_SYSTEM_AS_INPUT_WHEN_NOT_STORED.holds():
        assert "instructions" not in body
        assert body["input"][0]["role"] == "system"
    else:
        assert body["instructions"] == SYSTEM


def test_router_subclasses() -> None:
    from litellm.router import Router

    if ROUTER_REFUSES_SUBCLASSES.holds():
        with pytest.raises(TypeError, match="cannot be subclassed"):
            type("Sub", (Router,), {})
    else:
        assert issubclass(type("Sub", (Router,), {}), Router)


REJECTED_SIGNATURE = Reply(
    route=gemini.ROUTE,
    status=400,
    body={
        "error": {
            "code": 400,
            "message": "Corrupted thought signature.",
            "status": "INVALID_ARGUMENT",
        }
    },
)


async def test_gemini_resends_a_rejected_thought_signature(standin: StandIn) -> None:
    signature = gemini.signature("other-backend")
    history = [
        {"role": "user", "content": "Weather in Paris?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_1__thought__{signature}",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": f"call_1__thought__{signature}", "content": "18C"},
    ]
    standin.reset()
    standin.enqueue(
        REJECTED_SIGNATURE,
        gemini.generate_content(
            gemini.text("Mild.", seed="g"), model_version="gemini-3-pro-preview", seed="g"
        ),
    )
    with restored_callbacks(empty=True):
        call = litellm.acompletion(
            model="gemini/gemini-3-pro-preview",
            messages=history,
            api_base=standin.base_url + "/v1beta",
            api_key="sk-test",
            num_retries=0,
            max_retries=0,
        )
        if GEMINI_RESENDS_REJECTED_THOUGHT_SIGNATURES.holds():
            await call
        else:
            with pytest.raises(BadRequestError, match="thought signature"):
                await call
    sent = [request.body for request in standin.received]
    signatures = [
        part.get("thoughtSignature")
        for body in sent
        for content in body["contents"]
        for part in content["parts"]
        if part.get("thoughtSignature")
    ]
    if GEMINI_RESENDS_REJECTED_THOUGHT_SIGNATURES.holds():
        assert len(sent) == 2
        assert signatures[0] == signature and signatures[1] != signature
    else:
        assert len(sent) == 1 and signatures == [signature]


async def test_anthropic_server_tool_calls(standin: StandIn) -> None:
    server_call = {
        "type": "server_tool_use",
        "id": "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE",
        "name": "web_search",
        "input": {"query": "weather Paris"},
    }
    result = {
        "type": "web_search_tool_result",
        "tool_use_id": server_call["id"],
        "content": [],
    }
    standin.reset()
    standin.enqueue(
        anthropic.message(
            server_call, result, anthropic.text("Mild."), model="claude-sonnet-4-5", seed="s"
        )
    )
    with restored_callbacks(empty=True):
        response = await litellm.acompletion(
            model="anthropic/claude-sonnet-4-5",
            messages=[{"role": "user", "content": "Weather in Paris?"}],
            api_base=standin.base_url,
            api_key="sk-test",
            num_retries=0,
            max_retries=0,
        )
    message = response.choices[0].message
    tool_call_ids = [call.id for call in message.tool_calls or ()]
    apart = (message.provider_specific_fields or {}).get("server_tool_calls") or []
    if ANTHROPIC_SERVER_TOOL_CALLS_APART.holds():
        assert server_call["id"] not in tool_call_ids
        assert [call["id"] for call in apart] == [server_call["id"]]
    else:
        assert server_call["id"] in tool_call_ids
        assert not apart


async def test_messages_to_anthropic_on_rust_run_the_deployment_hook(
    standin: StandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hygiene's hook does not keep the call on Python, and its changes reach the wire."""
    from litellm.anthropic_interface import messages as anthropic_messages

    from litellm_hygiene import HygieneCallback

    monkeypatch.setenv("LITELLM_RUST", "1")
    history: list[dict[str, Any]] = [
        {"role": "user", "content": "Hi"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_01", "name": "f", "input": {}}],
        },
        {"role": "user", "content": [{"type": "text", "text": "Never mind."}]},
    ]
    standin.reset()
    standin.enqueue(anthropic.message(anthropic.text("ok"), model="claude-sonnet-4-5", seed="r"))
    with restored_callbacks(empty=True):
        litellm.callbacks = [HygieneCallback()]
        response = await anthropic_messages.acreate(
            model="anthropic/claude-sonnet-4-5",
            max_tokens=16,
            messages=history,
            api_base=standin.base_url,
            api_key="sk-test",
        )
    assert isinstance(response, dict)
    headers = (response.get("_hidden_params") or {}).get("additional_headers") or {}
    (request,) = standin.received
    answered = [
        block["tool_use_id"]
        for message in request.body["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    assert MESSAGES_TO_ANTHROPIC_ON_RUST_RUNS_THE_DEPLOYMENT_HOOK.holds()
    assert headers.get("x-litellm-rust") == "true"
    assert answered == ["toolu_01"]  # hygiene answered the interrupted call
