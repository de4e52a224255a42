"""Checks that remember what passed answer as they would without remembering."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from litellm_hygiene._families import POLICIES
from litellm_hygiene._policy import IdRule
from litellm_hygiene._rules._memo import LIMIT, Remembered
from litellm_hygiene._rules.tool_call_id import _Checker
from tests.rules.test_rules_properties import SETTINGS

_RULES = sorted({policy.tool_ids for policy in POLICIES.values()}, key=repr)

_IDS = st.one_of(
    st.from_regex(r"[a-zA-Z0-9]{9}", fullmatch=True),
    st.from_regex(r"(call|toolu|fc)_[a-zA-Z0-9_-]{1,30}", fullmatch=True),
    st.from_regex(r"call_[a-z0-9]{4}\|fc_[a-z0-9]{4}", fullmatch=True),
    st.text(max_size=70),
)


@pytest.mark.parametrize("rule", _RULES, ids=repr)
@SETTINGS
@given(ids=st.lists(_IDS, max_size=6))
def test_the_id_check_answers_alike_with_and_without_its_memory(
    ids: list[str], rule: IdRule
) -> None:
    """Each family's id rule: a checker that remembers the ids its pattern matched, in
    this process, finds what a checker that remembers nothing finds, the first time
    and every time after."""
    for _ in range(2):
        remembering = _Checker(rule)
        forgetting = _Checker(rule)
        forgetting.fitting = Remembered()
        for value in ids:
            assert remembering.problem(value) == forgetting.problem(value)
            forgetting.fitting = Remembered()


def test_a_memory_keeps_hashes_and_starts_again_when_full() -> None:
    memory = Remembered()
    for n in range(LIMIT):
        memory.add(f"id{n}")
    assert "id0" in memory and "id-1" not in memory
    memory.add("one more")
    assert len(memory.hashes) == 1 and "one more" in memory and "id0" not in memory
    assert all(isinstance(h, int) for h in memory.hashes)
