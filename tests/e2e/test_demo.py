"""The offline demo, run in-process: its score is what the wire-body rules say.

Every request goes through ``litellm.acompletion`` to the strict stand-in; the score the
demo prints counts the requests the stand-in accepted. Here each counted request is
checked against the same wire rules the cassette tests pin (``tests/e2e/test_cassettes.py``
asserts ``violations(...) == []`` on hygiene's body for each of these families).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator

import litellm
import pytest

from litellm_hygiene._demo import DEMO_TARGETS, Outcome, load_conversation, run_demo
from litellm_hygiene._demo._run import CALLBACK_LISTS
from litellm_hygiene._standin.rules import ANTHROPIC_TOOL_ID, MISTRAL_TOOL_ID, violations
from tests.e2e.test_cassettes import TARGETS as WIRE_TEST_TARGETS
from tests.support.cassettes import READONLY_WARNING, warm_up_litellm

pytestmark = pytest.mark.filterwarnings(f"ignore:{READONLY_WARNING}:UserWarning")


@pytest.fixture(scope="module")
def outcomes() -> Iterator[list[Outcome]]:
    import asyncio

    warm_up_litellm()
    saved = {name: list(getattr(litellm, name)) for name in CALLBACK_LISTS}
    loop = asyncio.new_event_loop()
    try:
        yield loop.run_until_complete(run_demo())
    finally:
        loop.close()
    assert {name: list(getattr(litellm, name)) for name in CALLBACK_LISTS} == saved


def test_the_demo_visits_every_family_the_wire_tests_pin() -> None:
    demo_models = {t.model for t in DEMO_TARGETS}
    assert {t.model for t in WIRE_TEST_TARGETS} <= demo_models
    assert "anthropic/claude-sonnet-4-5-20250929" in demo_models


def test_accepted_means_valid_by_the_wire_rules(outcomes: list[Outcome]) -> None:
    for outcome in outcomes:
        for attempt in (outcome.alone, outcome.hygiene):
            assert attempt.sent is not None, "LiteLLM sent every request"
            found = violations(outcome.target.api, attempt.sent)
            assert [problem.text for problem in attempt.problems] == found
            assert attempt.accepted == (found == []), (outcome.target.model, found)
            assert attempt.status == (200 if not found else 400)


def test_litellm_alone_is_refused_everywhere_and_hygiene_accepted_everywhere(
    outcomes: list[Outcome],
) -> None:
    alone = sum(o.alone.accepted for o in outcomes)
    helped = sum(o.hygiene.accepted for o in outcomes)
    assert (alone, helped, len(outcomes)) == (0, len(DEMO_TARGETS), len(DEMO_TARGETS))
    for outcome in outcomes:
        assert outcome.alone.error and "BadRequestError" in outcome.alone.error
        assert outcome.alone.changes == {}
        assert outcome.hygiene.error is None
        assert outcome.hygiene.answer and "Waterproof jacket" in outcome.hygiene.answer
        assert outcome.hygiene.changes.get("tool_pairing") == 1, "the interrupted call"


def test_what_hygiene_sent_is_what_each_provider_needs(outcomes: list[Outcome]) -> None:
    messages, _ = load_conversation()
    signature = messages[7]["thinking_blocks"][0]["signature"]
    by_model = {o.target.model: o.hygiene.sent for o in outcomes}
    claude = by_model["anthropic/claude-sonnet-4-5-20250929"]
    replayed = [b for m in claude["messages"] for b in m["content"] if isinstance(b, dict)]
    assert any(b.get("signature") == signature for b in replayed), "own thinking kept"
    mistral = by_model["mistral/mistral-large-latest"]["messages"]
    ids = [c["id"] for m in mistral for c in m.get("tool_calls") or []]
    assert ids and all(MISTRAL_TOOL_ID.match(i) for i in ids)
    for model, body in by_model.items():
        if model.startswith(("openai/", "deepseek/", "mistral/", "gemini/")):
            assert signature not in str(body), f"a Claude signature reached {model}"
    bedrock_body = by_model[DEMO_TARGETS[1].model]
    bedrock = bedrock_body["messages"]
    tool_ids = [b["toolUse"]["toolUseId"] for m in bedrock for b in m["content"] if "toolUse" in b]
    assert tool_ids and all(ANTHROPIC_TOOL_ID.match(i) for i in tool_ids)
    # Claude on Bedrock was asked to think, but the loop's last turn is another
    # deployment's: sent without thinking (thinking_tool_loop), while the same Claude
    # keeps it.
    assert "thinking" not in bedrock_body.get("additionalModelRequestFields", {})
    assert claude["thinking"]["type"] == "enabled"


def test_claude_on_bedrock_asked_to_think_shows_the_thinking_switch(
    outcomes: list[Outcome],
) -> None:
    bedrock = next(o for o in outcomes if o.target.model == DEMO_TARGETS[1].model)
    assert bedrock.hygiene.changes.get("thinking_tool_loop") == 1
    assert "thinking" in bedrock.alone.sent.get("additionalModelRequestFields", {})


async def test_the_callers_conversation_is_never_changed() -> None:
    warm_up_litellm()
    conversation = load_conversation()
    before = copy.deepcopy(conversation)
    await run_demo(DEMO_TARGETS[-2:], conversation)
    assert conversation == before


def test_the_readme_states_the_score_the_demo_measures(outcomes: list[Outcome]) -> None:
    from pathlib import Path

    from litellm_hygiene._cli._demo_view import score_line

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text("utf-8")
    assert score_line(outcomes) in readme
