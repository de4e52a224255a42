"""A provenance the store gives back means what the same stamp on the message means.

The in-process store is asked in the request's one step, key by key, and what it finds
rides on the request's slot; any other store is asked in one batch between two steps.
Both must send what the client would have got had it kept the stamps: the same
messages, the same changes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from litellm_hygiene import resolve_target
from litellm_hygiene._families import policy_for
from litellm_hygiene._integration._options import HygieneOptions
from litellm_hygiene._integration._store import MemoryStore, Provenance, put_fingerprints
from litellm_hygiene._integration._store._fingerprints import lookup_keys
from litellm_hygiene._openai import STAMP_KEY
from litellm_hygiene._pipeline import context_for
from litellm_hygiene._sanitize import read_request
from litellm_hygiene._view import Stamp
from tests.support import preparing
from tests.support.stamps import without_stamps
from tests.support.strategies import agent_transcripts, stamps

TARGETS = (
    "anthropic/claude-sonnet-4-5",
    "gemini/gemini-2.5-pro",
    "openai/gpt-4o",
    "mistral/mistral-large-latest",
)
for _model in TARGETS:  # resolved once here: the first lookup in LiteLLM is slow
    resolve_target(_model)


class _BatchStore:
    """A store of the caller's own (not the in-process one): asked in one batch."""

    def __init__(self, inner: MemoryStore) -> None:
        self.inner = inner

    def get(self, keys: Sequence[str]) -> Provenance | None:
        return self.inner.get(keys)

    def put(self, keys: Sequence[str], provenance: Provenance) -> None:
        self.inner.put(keys, provenance)

    async def aget(self, keys: Sequence[str]) -> Provenance | None:
        return self.inner.get(keys)

    async def aput(self, keys: Sequence[str], provenance: Provenance) -> None:
        self.inner.put(keys, provenance)


@st.composite
def _recorded(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[tuple[int, Provenance]]]:
    """A transcript with some stamps dropped, and which of its turns a store recorded."""
    messages = [dict(m) for m in draw(agent_transcripts)]
    recorded: list[tuple[int, Provenance]] = []
    for index, message in enumerate(messages):
        if message["role"] != "assistant":
            continue
        if draw(st.booleans()):
            message.pop(STAMP_KEY, None)  # a client that drops the stamp
        if draw(st.booleans()):
            provenance = Provenance.from_stamp(draw(stamps))
            assert provenance is not None
            recorded.append((index, provenance))
    return messages, recorded


def _store(messages: list[dict[str, Any]], recorded: list[tuple[int, Provenance]]) -> MemoryStore:
    store = MemoryStore()
    for index, provenance in recorded:
        answer = {k: v for k, v in messages[index].items() if k != STAMP_KEY}
        put_fingerprints(store, answer, provenance)
    return store


def _stamped(messages: list[dict[str, Any]], store: MemoryStore) -> list[dict[str, Any]]:
    """The transcript as a client that kept its stamps sends it."""
    out = []
    for message in messages:
        found = None
        if message["role"] == "assistant" and STAMP_KEY not in message:
            found = store.get(lookup_keys(message))
        out.append(message if found is None else {**message, STAMP_KEY: found.as_stamp()})
    return out


@given(
    case=_recorded(),
    model=st.sampled_from(TARGETS),
    unknown=st.sampled_from([None, "match_evidence", "foreign", "same"]),
)
def test_the_store_s_answer_is_read_as_the_stamp_whichever_path_asks(
    case: tuple[list[dict[str, Any]], list[tuple[int, Provenance]]],
    model: str,
    unknown: Any,
) -> None:
    # Turns whose provenance cannot change how they are sent are not looked up (their
    # own content says another protocol): sent as if the client had kept every stamp,
    # under each policy for turns of unknown origin.
    messages, recorded = case
    options = HygieneOptions(unknown_provenance=unknown)
    kwargs = {"model": model, "messages": messages}
    expected = preparing.prepare_request_sync(
        {"model": model, "messages": _stamped(messages, _store(messages, recorded))},
        options,
        None,
    )
    one_step = asyncio.run(preparing.prepare_request(kwargs, options, _store(messages, recorded)))
    batched = asyncio.run(
        preparing.prepare_request(kwargs, options, _BatchStore(_store(messages, recorded)))
    )
    sync = preparing.prepare_request_sync(kwargs, options, _store(messages, recorded))
    for prepared in (one_step, batched, sync):
        # The stamp aside: the expected request carries it, and where LiteLLM leaves
        # it behind (tests/shapes/test_wire_keys.py) hygiene does too.
        assert without_stamps(prepared.messages) == without_stamps(expected.messages)
        assert prepared.changes == expected.changes
    assert one_step.restored == batched.restored == sync.restored


def test_a_turn_without_thinking_is_looked_up_when_a_merge_can_reach_thinking() -> None:
    """Found by the property test above: turns 3 and 5 share an id, so the store knows
    both as Claude's. The empty user turns between them go, the four assistant turns
    merge, and a merge with another model's turn drops turn 1's thinking. Turn 3 has no
    thinking and no assistant neighbour as sent, yet its provenance decides that."""
    call = {"id": "tool:aa", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    messages: list[dict[str, Any]] = [
        {"role": "assistant", "content": ""},
        {
            "role": "assistant",
            "content": None,
            "thinking_blocks": [{"type": "thinking", "thinking": "", "signature": "c2ln"}],
        },
        {"role": "user", "content": ""},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "user", "content": ""},
        {"role": "assistant", "content": "", "tool_calls": [dict(call)]},
    ]
    claude = Provenance("anthropic", "anthropic-messages", "claude-sonnet-4-5")
    store = _store(messages, [(5, claude)])
    kwargs = {"model": "gemini/gemini-2.5-pro", "messages": messages}
    expected = preparing.prepare_request_sync(
        {**kwargs, "messages": _stamped(messages, store)}, HygieneOptions(), None
    )
    prepared = preparing.prepare_request_sync(
        kwargs, HygieneOptions(), _store(messages, [(5, claude)])
    )
    assert without_stamps(prepared.messages) == without_stamps(expected.messages)
    assert not any("thinking_blocks" in m for m in prepared.messages)
    assert prepared.restored == 2


_TURNS: dict[str, dict[str, Any]] = {
    "claude": {
        "role": "assistant",
        "content": "a",
        "thinking_blocks": [{"type": "thinking", "thinking": "t", "signature": "c2ln"}],
        "tool_calls": [
            {"id": "toolu_01", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        ],
    },
    "gpt": {
        "role": "assistant",
        "content": "a",
        "reasoning_content": "t",
        "tool_calls": [
            {"id": "call_01", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        ],
    },
    "mistral": {
        "role": "assistant",
        "content": "a",
        "reasoning_content": "t",
        "tool_calls": [
            {"id": "abcDEF123", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        ],
    },
    "nothing": {"role": "assistant", "content": "a", "reasoning_content": "t"},
}
_DECLARATIONS = [
    None,
    ("anthropic", "anthropic-messages", "claude-sonnet-4-5"),
    ("openai", "openai-chat", "gpt-4o"),
    ("gemini", "gemini", "gemini-2.5-pro"),
]


@pytest.mark.parametrize("unknown", ["match_evidence", "foreign", "same"])
@pytest.mark.parametrize("model", TARGETS)
@pytest.mark.parametrize("turn", sorted(_TURNS))
def test_provenance_matters_exactly_where_a_declaration_changes_the_verdict(
    turn: str, model: str, unknown: Any
) -> None:
    """A turn is looked up exactly when some provenance would judge it differently."""
    messages = [{"role": "user", "content": "q"}, _TURNS[turn]]
    target = resolve_target(model)
    policy = policy_for(target).model_copy(update={"unknown_provenance": unknown})
    verdicts = set()
    itself = (target.provider, target.api, target.model_id)
    for declared in [*_DECLARATIONS, itself]:
        conv = read_request(messages, context_for(target, policy))
        if declared is not None:
            conv.slots[1].restored = Stamp(*declared)
        verdicts.add(conv.judged(conv.slots[1]))
    conv = read_request(messages, context_for(target, policy))
    matters = conv.provenance_matters(conv.slots[1])
    assert matters == (len(verdicts) == 2)
    if not matters:
        assert verdicts == {conv.judged(conv.slots[1])} == {False}


def test_a_turn_of_another_protocol_is_looked_up_when_unknown_turns_count_as_same() -> None:
    """Under ``unknown_provenance="same"`` a turn nobody vouches for is replayed, even
    one whose content says another protocol; the store's answer then decides."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "q"}, dict(_TURNS["claude"])]
    messages.append({"role": "tool", "tool_call_id": "toolu_01", "content": "1"})
    claude = Provenance.from_stamp(
        {"provider": "anthropic", "api": "anthropic-messages", "model": "claude-sonnet-4-5"}
    )
    assert claude is not None
    store = _store(messages, [(1, claude)])
    options = HygieneOptions(unknown_provenance="same")
    kwargs = {"model": "openai/gpt-4o", "messages": messages}
    prepared = preparing.prepare_request_sync(kwargs, options, store)
    assert prepared.restored == 1
    assert prepared.messages[1]["content"] == "t\n\na"  # Claude's thinking, as text
    unknown = preparing.prepare_request_sync(kwargs, options, MemoryStore())
    assert unknown.restored == 0 and unknown.messages[1]["content"] == "a"
