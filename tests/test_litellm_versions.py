"""The wire facts that differ between LiteLLM releases, pinned per release.

Each :class:`~tests.litellm_version.Change` is read off the body the installed release
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

from litellm_hygiene._standin import Reply, StandIn, gemini, openai_responses
from tests.cassettes import READONLY_WARNING, warm_up_litellm
from tests.litellm_callbacks import restored_callbacks
from tests.litellm_version import (
    CASSETTE_RELEASE,
    CHANGES,
    GEMINI_3_NO_DEFAULT_TEMPERATURE,
    RESPONSES_SYSTEM_AS_INPUT,
    Change,
    Release,
    UnknownRelease,
    recorded_as_installed,
)

pytestmark = pytest.mark.filterwarnings(f"ignore:{READONLY_WARNING}:UserWarning")

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"
SYSTEM = "Be brief."
HELLO = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "Hi."}]


def test_the_cassettes_release_is_the_dev_extras_pin() -> None:
    pins = re.findall(r'"litellm\[proxy\]==([0-9.]+)"', PYPROJECT.read_text())
    assert [tuple(int(p) for p in pin.split(".")) for pin in pins] == [CASSETTE_RELEASE]


@pytest.mark.parametrize("change", CHANGES, ids=lambda c: c.what[:40])
def test_every_change_is_known_for_the_installed_release(change: Change) -> None:
    change.holds()  # raises UnknownRelease for a line nobody looked up
    assert not change.holds(CASSETTE_RELEASE)


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
    ],
)
def test_the_first_release_of_each_line(change: Change, release: Release, holds: bool) -> None:
    assert change.holds(release) is holds


@pytest.mark.parametrize("release", [(1, 107, 0), (1, 110, 0), (1, 105, 9)])
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


async def _sent(server: StandIn, model: str, base: str, reply: Reply) -> tuple[str, Any]:
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
