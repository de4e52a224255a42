"""``loads`` (the JSON check run on every tool call's arguments) agrees with json.loads, and
``encode_arguments`` (every call written in the chat shape) with json.dumps."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from litellm_hygiene._json import INVALID, encode_arguments, loads
from litellm_hygiene._rules._memo import LIMIT
from litellm_hygiene._rules.tool_arguments import _OBJECTS, valid_arguments
from tests.rules.test_rules_properties import SETTINGS

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)


def _reference(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return INVALID


def _same(ours: Any, theirs: Any) -> bool:
    if isinstance(ours, float) and isinstance(theirs, float) and math.isnan(ours):
        return math.isnan(theirs)
    return ours is theirs if theirs is INVALID else ours == theirs


@st.composite
def _near_json(draw: st.DrawFn) -> str:
    """JSON text, then perhaps cut, padded, prefixed or suffixed: valid and almost valid."""
    text = json.dumps(draw(_JSON), ensure_ascii=draw(st.booleans()))
    edit = draw(st.sampled_from(["none", "cut", "pad", "prefix", "suffix"]))
    if edit == "cut" and text:
        text = text[: draw(st.integers(0, len(text) - 1))]
    elif edit == "pad":
        space = st.text(alphabet=" \t\n\r\x0b\x0c\xa0\u2028", max_size=3)
        text = draw(space) + text + draw(space)
    elif edit == "prefix":
        text = draw(st.sampled_from(["\ufeff", "x", "{", "[", '"'])) + text
    elif edit == "suffix":
        text += draw(st.sampled_from(["x", "}", "]", " 1", ",", "\x00"]))
    return text


@SETTINGS
@given(_near_json() | st.text())
def test_loads_gives_what_json_loads_gives(text: str) -> None:
    assert _same(loads(text), _reference(text))


@pytest.mark.parametrize(
    "text", ["NaN", '{"a": Infinity}', "[" * 5000, '{"a": "\\ud800"}', "\ufeff{}", " {} \n"]
)
def test_loads_edge_cases(text: str) -> None:
    assert _same(loads(text), _reference(text))


def test_loads_of_what_is_not_text_is_invalid() -> None:
    assert loads(None) is INVALID
    assert loads(5) is INVALID


@SETTINGS
@given(st.lists(_near_json() | st.text(), max_size=4))
def test_valid_arguments_remembers_only_objects_and_answers_alike(texts: list[str]) -> None:
    """The check tool_arguments makes answers as json.loads does, the first time a
    string is seen and every time after (it keeps the hash of objects seen, nothing
    else, and never that of a string that is not one)."""
    for _ in range(2):
        for text in texts:
            expected = isinstance(_reference(text), dict)
            assert valid_arguments(text) is expected
            assert (text in _OBJECTS) is expected


def test_valid_arguments_memory_is_bounded() -> None:
    """Full, the memory of objects seen starts again rather than grow."""
    for n in range(LIMIT + 1):
        assert valid_arguments(f'{{"n": {n}}}')
    assert 0 < len(_OBJECTS.hashes) <= LIMIT
    assert valid_arguments({"already": "an object"})
    assert not valid_arguments(7)
    assert not valid_arguments('{"cut": ')


@SETTINGS
@given(value=_JSON | st.dictionaries(st.text(), _JSON, max_size=4))
def test_arguments_are_written_as_json_dumps_writes_them(value: Any) -> None:
    assert encode_arguments(value) == json.dumps(value, ensure_ascii=False)


@pytest.mark.parametrize("value", [{"é": "ü\u2028"}, {"nan": math.inf}, {"k": [1, {"x": None}]}])
def test_arguments_keep_non_ascii_text_and_what_json_dumps_accepts(value: Any) -> None:
    assert encode_arguments(value) == json.dumps(value, ensure_ascii=False)
