"""The recording plumbing itself: one plain call per provider, and a body that must not replay.

No hygiene callback here: these cassettes pin which path LiteLLM 1.106 calls for each
provider route and that the stand-in's bodies parse as the real ones do.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from litellm.exceptions import InternalServerError
from vcr.errors import CannotOverwriteExistingCassetteException

from litellm_hygiene._standin import (
    Reply,
    StandIn,
    anthropic,
    bedrock,
    deepseek,
    gemini,
    mistral,
    openai_chat,
    openai_responses,
)
from tests.support.cassettes import (
    Provider,
    offline,
    record_mode,
    recording,
    running_standin,
    warm_up_litellm,
)

pytestmark = pytest.mark.filterwarnings(
    "ignore:Items? .* using the `ReadOnly` qualifier:UserWarning"
)

HELLO = [{"role": "user", "content": "Say hello in one word."}]


@pytest.fixture(scope="module")
def standin() -> Iterator[StandIn | None]:
    warm_up_litellm()
    with running_standin() as server:
        yield server


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    offline(monkeypatch)


@dataclass(frozen=True)
class Case:
    name: str
    provider: Provider
    model: str
    reply: Reply
    path: str
    text: str


CASES = [
    Case(
        "anthropic",
        "anthropic",
        "anthropic/claude-sonnet-4-5-20250929",
        anthropic.message(
            anthropic.text("Hello!"), model="claude-sonnet-4-5-20250929", seed="wire"
        ),
        "/v1/messages",
        "Hello!",
    ),
    Case(
        "gemini_2_5",
        "gemini",
        "gemini/gemini-2.5-flash",
        gemini.generate_content(
            gemini.text("Hello!", seed="wire-25"), model_version="gemini-2.5-flash", seed="w25"
        ),
        "/v1beta/models/gemini-2.5-flash:generateContent",
        "Hello!",
    ),
    Case(
        "gemini_3",
        "gemini",
        "gemini/gemini-3-pro-preview",
        gemini.generate_content(
            gemini.text("Hello!", seed="wire-3"), model_version="gemini-3-pro-preview", seed="w3"
        ),
        "/v1beta/models/gemini-3-pro-preview:generateContent",
        "Hello!",
    ),
    Case(
        "openai_chat",
        "openai",
        "openai/gpt-4o",
        openai_chat.completion("Hello!", model="gpt-4o-2024-08-06", seed="wire"),
        "/v1/chat/completions",
        "Hello!",
    ),
    Case(
        "openai_responses",
        "responses",
        "openai/responses/gpt-5",
        openai_responses.response(
            openai_responses.reasoning(["**Greeting**\n\nOne word."], seed="wire"),
            openai_responses.message("Hello!", seed="wire"),
            model="gpt-5-2025-08-07",
            seed="wire",
        ),
        "/v1/responses",
        "Hello!",
    ),
    Case(
        "mistral",
        "mistral",
        "mistral/mistral-large-latest",
        mistral.completion("Hello!", model="mistral-large-latest", seed="wire"),
        "/v1/chat/completions",
        "Hello!",
    ),
    Case(
        "bedrock_converse",
        "bedrock",
        "bedrock/converse/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        bedrock.converse(bedrock.text("Hello!")),
        "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse",
        "Hello!",
    ),
    Case(
        "deepseek",
        "deepseek",
        "deepseek/deepseek-reasoner",
        deepseek.completion(
            "Hello!", model="deepseek-reasoner", seed="wire", reasoning_content="One word."
        ),
        "/beta/chat/completions",
        "Hello!",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
async def test_single_turn_wire_path(case: Case, standin: StandIn | None) -> None:
    with recording(f"wire_{case.name}", standin) as wire:
        response = await wire.acompletion(
            case.provider, case.model, HELLO, case.reply, max_tokens=64
        )
    assert [r.path for r in wire.requests] == [case.path]
    if wire.mode == "real":
        assert response.choices[0].message.content
    else:
        assert response.choices[0].message.content == case.text


async def test_changed_body_does_not_replay(standin: StandIn | None) -> None:
    """A request whose body differs from the recorded one is refused, not answered."""
    if record_mode() != "replay":
        pytest.skip("checks replay only")
    case = CASES[0]
    with pytest.raises(AssertionError, match="never sent"):
        with recording(f"wire_{case.name}", standin) as wire:
            # LiteLLM wraps vcr's error in its own (a server error: no response came).
            with pytest.raises(InternalServerError) as caught:
                await wire.acompletion(
                    case.provider, case.model, HELLO, case.reply, max_tokens=64, temperature=0.5
                )
    assert any(isinstance(e, CannotOverwriteExistingCassetteException) for e in chain(caught.value))
    assert "request bodies differ" in str(caught.value)


def chain(error: BaseException) -> Iterator[BaseException]:
    seen: BaseException | None = error
    while seen is not None:
        yield seen
        seen = seen.__cause__ or seen.__context__
