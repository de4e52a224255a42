"""Each shortcut the hot path takes gives the verdict of the check it stands in for.

A shortcut (one pattern for an id, a fast JSON scan) lives in the rule's own module and is
built from the rule's data; these properties hold it to the rule's own words-giving check,
on inputs that fit and on inputs that almost do.
"""

from __future__ import annotations

import os
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from litellm_hygiene import resolve_target
from litellm_hygiene._families import POLICIES
from litellm_hygiene._openai._facts import read_facts
from litellm_hygiene._openai._parts import decode_thinking_entry, read_thinking_entry
from litellm_hygiene._openai._wire import OPENAI
from litellm_hygiene._policy import IdRule
from litellm_hygiene._rules._findings import Change, counted
from litellm_hygiene._rules.tool_call_id import _Checker, _problem
from litellm_hygiene._view import readdressed_facts, renamed_facts, wire_plan

SETTINGS = settings(max_examples=int(os.environ.get("HYGIENE_EXAMPLES", "40")) * 5, deadline=None)
_ALPHABETS = ["a-zA-Z0-9", "a-zA-Z0-9_-", "a-z", None]


@st.composite
def id_rules(draw: st.DrawFn) -> IdRule:
    """Id rules as policies state them, and odd ones (no room, exact beyond max)."""
    known = [policy.tool_ids for policy in POLICIES.values()]
    if draw(st.booleans()):
        return draw(st.sampled_from(known))
    return IdRule(
        allowed=draw(st.sampled_from(_ALPHABETS)),
        max_length=draw(st.none() | st.integers(0, 70)),
        exact_length=draw(st.none() | st.integers(0, 12)),
        keep_responses_pairs=draw(st.booleans()),
    )


@st.composite
def ids(draw: st.DrawFn) -> str:
    """Ids near the edges: lengths around 9, 40 and 64, one odd character, pairs."""
    length = draw(st.sampled_from([0, 1, 8, 9, 10, 39, 40, 41, 63, 64, 65]) | st.integers(0, 80))
    body = draw(st.text(st.sampled_from("aZ09_-"), min_size=length, max_size=length))
    if body and draw(st.booleans()):
        at = draw(st.integers(0, len(body) - 1))
        odd = draw(st.sampled_from(["|", ".", " ", "\n", "é", ":", "|fc_1"]))
        body = body[:at] + odd + body[at + 1 :]
    return body


@settings(SETTINGS)
@given(rule=id_rules(), value=ids())
def test_the_id_shortcut_is_the_id_rule(rule: IdRule, value: str) -> None:
    """An id passes the one-pattern check exactly when the rule finds nothing in it."""
    assert (_Checker(rule).problem(value) is None) == (_problem(value, rule) is None)
    assert _Checker(rule).problem(value) == _problem(value, rule)


_SIGNED = "call_ab__thought__U0lH"
_TARGETS = [
    "anthropic/claude-sonnet-4-5",
    "gemini/gemini-2.5-pro",
    "openrouter/google/gemini-2.5-pro",
]


@settings(SETTINGS)
@given(
    old=st.lists(ids() | st.just(_SIGNED), min_size=1, max_size=4),
    new=st.dictionaries(st.integers(0, 3), ids() | st.just(_SIGNED), max_size=4),
    result=st.none() | ids() | st.just(_SIGNED),
    model=st.sampled_from(_TARGETS),
)
def test_facts_of_renamed_ids_are_the_facts_read_again(
    old: list[str], new: dict[int, str], result: str | None, model: str
) -> None:
    """Where the renamer says what the facts of a renamed message are, they are the
    facts the reader finds in it."""
    plan = wire_plan(resolve_target(model))
    calls = {n: new_id for n, new_id in new.items() if n < len(old)}
    turn = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}} for i in old
        ],
    }
    derived = renamed_facts(read_facts(turn, 0, plan), calls, None)
    if derived is not None:
        assert derived == read_facts(OPENAI.with_ids(turn, calls, None), 0, plan)
    answer = {"role": "tool", "tool_call_id": old[0], "content": "ok"}
    derived = renamed_facts(read_facts(answer, 0, plan), {}, result)
    if derived is not None:
        assert derived == read_facts(OPENAI.with_ids(answer, {}, result), 0, plan)


@settings(SETTINGS)
@given(
    old=ids() | st.just(_SIGNED),
    new=ids() | st.just(_SIGNED) | st.just("call_ab"),
    content=st.sampled_from(["ok", "", [{"type": "text", "text": "ok"}]]),
    stamped=st.booleans(),
    model=st.sampled_from(_TARGETS),
)
def test_facts_of_a_readdressed_result_are_the_facts_read_again(
    old: str, new: str, content: Any, stamped: bool, model: str
) -> None:
    """tool_pairing's readdressed result: facts worked out equal the facts read again."""
    plan = wire_plan(resolve_target(model))
    answer: dict[str, Any] = {"role": "tool", "tool_call_id": old, "content": content}
    if stamped:
        answer["litellm_hygiene"] = {"provider": "openai", "api": "openai-chat", "model": "m"}
    derived = readdressed_facts(read_facts(answer, 0, plan), new, plan)
    assert derived == read_facts(OPENAI.with_ids(answer, {}, new), 0, plan)


_TEXTS = st.sampled_from(["", " ", "plan", "rs_1"])
_ODD = st.none() | st.integers() | st.just({"type": "ephemeral"})


@st.composite
def thinking_entries(draw: st.DrawFn) -> object:
    """``thinking_blocks`` entries: readable, redacted, and ones the decoder refuses.

    Each key is mostly of the type the decoder reads, sometimes of another, sometimes
    absent.
    """
    if draw(st.integers(0, 9)) == 0:
        return draw(st.sampled_from([None, "thinking", ["thinking"], 3]))
    kind = draw(st.sampled_from(["thinking", "thinking", "redacted_thinking", "text", None]))
    entry: dict[str, object] = {"type": kind}
    for key in ("thinking", "data", "signature", "id", "cache_control", "note"):
        present = draw(st.integers(0, 3))
        if present:
            entry[key] = draw(_TEXTS if present > 1 else _ODD)
    return entry


@settings(SETTINGS)
@given(entry=thinking_entries())
def test_a_thinking_entry_read_is_the_entry_decoded(entry: object) -> None:
    """What a wire edit reads of a thinking entry is what the entry holds, and what the
    decoder makes of it (which is built on the same read)."""
    view = read_thinking_entry(entry)
    decoded = decode_thinking_entry(entry)
    if not isinstance(entry, dict):
        assert view is None and decoded is None
    elif entry["type"] == "thinking" and isinstance(entry.get("thinking"), str):
        signature = entry.get("signature")
        expected = (entry["thinking"], signature if isinstance(signature, str) else None, False)
        assert view is not None and decoded is not None
        assert (view.thinking, view.signature, view.redacted) == expected
        assert (view.origin, view.item) == (decoded.origin, decoded.extra.get("id"))
    elif entry["type"] == "redacted_thinking" and isinstance(entry.get("data"), str):
        assert view is not None and decoded is not None
        assert (view.thinking, view.signature, view.redacted) == ("", entry["data"], True)
        assert (view.origin, view.item) == (decoded.origin, decoded.extra.get("id"))
    else:
        assert view is None and decoded is None


def _code(name: str, fresh: bool) -> str:
    """``name``, or an equal string that is another object (as a rule's code is not)."""
    return "".join(list(name)) if fresh else name


@settings(SETTINGS)
@given(
    kinds=st.lists(
        st.tuples(st.sampled_from(["tool_pairing", "hygiene_stamp", "turn_order"]), st.booleans()),
        max_size=30,
    ),
    leaving_out=st.sets(st.sampled_from(["tool_pairing", "hygiene_stamp", "turn_order"])),
)
def test_changes_counted_by_runs_are_the_changes_counted_one_by_one(
    kinds: list[tuple[str, bool]], leaving_out: set[str]
) -> None:
    """A report counts a rule's changes by runs of one code object: what counting each
    change gives, where runs alternate, a code is left out, or an equal code is another
    string object."""
    changes = [Change(_code(name, fresh)) for name, fresh in kinds]  # type: ignore[arg-type]
    expected: dict[str, int] = {}
    for change in changes:
        if change.kind not in leaving_out:
            expected[change.kind] = expected.get(change.kind, 0) + 1
    assert counted(changes, frozenset(leaving_out)) == expected
