"""The floor benchmark's bare rewrites send what hygiene sends (ids aside).

``benchmarks/bench_floor.py`` times a hand-written rewrite of the benchmark transcripts
beside the hook, as the least any callback can add. That yardstick means something
only while it writes hygiene's very messages: these tests hold it to that, and hold
its comparison to catching a difference.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from benchmarks.bench_floor import CASES, same_but_ids
from benchmarks.transcripts import MODELS, agent_transcript
from litellm_hygiene import sanitize_messages


@pytest.mark.parametrize(("case", "rewrite"), CASES, ids=[case[0] for case, _ in CASES])
@pytest.mark.parametrize("exchanges", [3, 40])
def test_the_floor_sends_what_hygiene_sends(case: Any, rewrite: Any, exchanges: int) -> None:
    _, source, stamp, target = case
    messages = agent_transcript(exchanges, source=source, stamp=stamp)
    before = copy.deepcopy(messages)
    hygiene = sanitize_messages(messages, MODELS[target]).messages
    assert same_but_ids(rewrite(messages), hygiene) is None
    assert messages == before


def _mistral_pair() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    case, rewrite = next((c, r) for c, r in CASES if c[3] == "mistral")
    messages = agent_transcript(3, source=case[1], stamp=case[2])
    return rewrite(messages), sanitize_messages(messages, MODELS["mistral"]).messages


def test_same_but_ids_sees_other_content() -> None:
    floor, hygiene = _mistral_pair()
    floor[2] = {**floor[2], "content": "something else"}
    assert same_but_ids(floor, hygiene) == "message 2 differs"


def test_same_but_ids_sees_a_result_answering_another_call() -> None:
    floor, hygiene = _mistral_pair()
    first, second = [i for i, m in enumerate(floor) if m["role"] == "tool"][:2]
    floor[first], floor[second] = (
        {**floor[first], "tool_call_id": floor[second]["tool_call_id"]},
        {**floor[second], "tool_call_id": floor[first]["tool_call_id"]},
    )
    assert same_but_ids(floor, hygiene) == f"message {first}: the result answers another call"


def test_same_but_ids_sees_a_missing_message() -> None:
    floor, hygiene = _mistral_pair()
    assert same_but_ids(floor[:-1], hygiene) is not None
