"""Which turns of a request are looked up in the provenance store, and by what.

A client that drops hygiene's stamps (Claude Code, Codex) sends its turns unstamped: each
assistant turn whose provenance matters is looked up in the store by its lookup tokens
(``iter_lookup_tokens``). With a recall, what a turn's lookup needs (its tokens and
keys, whether its provenance matters for the target) is worked out once per message;
with the in-process store, the lookups themselves go on from where the conversation's
last request left them (:func:`looked_up`): a turn that found nothing is not looked up
again while no put since could have made it find something, and a turn that found its
provenance is asked again by the key that found it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from .._recall import Seen
from .._rules import Conversation, Slot
from .._view import OPAQUE, STAMPED
from ._store import MemoryStore, Provenance
from ._store._fingerprints import iter_lookup_tokens, token_key, token_mark
from ._store._memory import Ask, Found

__all__ = ["looked_up", "lookup_keys_of", "lookup_tokens", "lookups"]

_LOOKED_UP: Final = "store lookups"
"""The walk :func:`looked_up` remembers its state under (``Conversation.walked``)."""
_HIT_BYTES: Final = 200
"""Estimated bytes a remembered hit holds (its index, position and 64-character key)."""
_MARK_BYTES: Final = 40
"""Estimated bytes a remembered mark holds in its set."""


def lookups(conv: Conversation) -> list[int]:
    """The unstamped assistant turns to look up (and hash): those whose provenance matters.

    Provenance decides whether a turn's opaque data (thinking, signatures,
    response-only fields) is replayed, and how two assistant turns merge: a merge of
    turns judged differently treats both as another model's. So it matters for every
    assistant turn once any assistant turn holds opaque data (a turn without any can
    still be merged with that one: the turns between them may go, as empty or failed
    ones do), and for none otherwise. Nor for a turn whose own content already says it
    came from another protocol than the target's: no provenance makes it replayable
    (``Conversation.provenance_matters``), so it is not hashed or looked up.
    """
    return _mattering(conv, 0) if _opaque(conv.slots) else []


def _mattering(conv: Conversation, start: int) -> list[int]:
    """The unstamped assistant turns from ``start`` on whose provenance matters."""
    slots = conv.slots
    key = conv.ctx.recall_key
    return [
        index
        for index in range(start, len(slots))
        if (slot := slots[index]).facts.role == "assistant"
        and not slot.facts.flags & STAMPED
        and (conv.provenance_matters(slot) if key is None else _matters(conv, slot, key))
    ]


def _opaque(slots: Sequence[Slot]) -> bool:
    """Whether an assistant turn of ``slots`` holds opaque data."""
    return any(s.facts.role == "assistant" and s.facts.flags & OPAQUE for s in slots)


def _matters(conv: Conversation, slot: Slot, key: int) -> bool:
    """``conv.provenance_matters(slot)``, remembered for the target where a recall is.

    Asked of a turn before any provenance is restored, so it depends on the turn and the
    target only; where it does not matter, the verdict it settled is set again.
    """
    seen: Seen | None = slot.seen
    if seen is None:
        return conv.provenance_matters(slot)
    found = None if seen.matters is None else seen.matters.get(key)
    if found is None:
        matters = conv.provenance_matters(slot)
        found = (matters, bool(slot.verdict))
        if seen.matters is None:
            seen.matters = {}
        seen.matters[key] = found
    elif not found[0]:
        slot.verdict = found[1]
    return found[0]


def lookup_tokens(slot: Slot) -> tuple[tuple[str, str], ...]:
    """A turn's lookup tokens (``iter_lookup_tokens``), remembered where a recall is."""
    seen: Seen | None = slot.seen
    if seen is None:
        return tuple(iter_lookup_tokens(slot.raw))
    tokens = seen.tokens
    if tokens is None:
        tokens = seen.tokens = tuple(iter_lookup_tokens(slot.raw))
    return tokens


def lookup_keys_of(slot: Slot) -> tuple[str, ...]:
    """A turn's lookup keys (``lookup_keys``: its tokens, hashed), remembered."""
    seen: Seen | None = slot.seen
    keys = None if seen is None else seen.keys
    if keys is None:
        keys = tuple(token_key(token) for token in lookup_tokens(slot))
        if seen is not None:
            seen.keys = keys
    return keys


class _Looked:
    """Where a conversation's lookups ended: what the next request goes on from.

    Attributes:
        store: The store they were made in.
        version: The store's version when they were made (``None``: none was made).
        opaque: Whether an assistant turn held opaque data (without, none matters).
        turns: The turns that found their provenance, in order.
        asks: How each of them is asked again: its tokens, the position of the one
            that found it and its key.
        marks: The marks of the tokens that found nothing (a put of one of them can
            make its turn find something).
    """

    __slots__ = ("asks", "marks", "opaque", "store", "turns", "version")

    def __init__(
        self,
        store: MemoryStore,
        version: int | None,
        opaque: bool,
        found: tuple[tuple[int, ...], tuple[Ask, ...]] = ((), ()),
        marks: frozenset[int] = frozenset(),
    ) -> None:
        self.store = store
        self.version = version
        self.opaque = opaque
        self.turns, self.asks = found
        self.marks = marks


def looked_up(conv: Conversation, store: MemoryStore) -> tuple[list[int], list[Provenance | None]]:
    """The turns of ``conv`` looked up in ``store``, and what each found.

    What every turn's lookup from its first token finds, with the same refreshes and
    drops in the same order: where the conversation's last request left its lookups
    (``Conversation.resumed``) and no put since holds a mark of a token that found
    nothing then, only the turns that found something are asked again (by the key that
    found it; from the next token on where it is gone) and the new turns looked up.
    """
    found_state = conv.resumed(_LOOKED_UP)
    since = 0 if found_state is None else found_state[0]
    state: _Looked | None = None if found_state is None else found_state[1]
    slots = conv.slots
    if state is not None and state.store is store:
        if not state.opaque and not _opaque(slots[since:]):
            _walked(conv, _Looked(store, None, False), since)
            return [], []
        if state.opaque:
            resumed = _resumed(conv, store, state, since)
            if resumed is not None:
                return resumed
    opaque = _opaque(slots)
    turns = _mattering(conv, 0) if opaque else []
    asks: list[Ask] = [(lookup_tokens(slots[index]), 0, None) for index in turns]
    found = store.lookup(asks)
    assert found is not None  # asked since nothing
    version = found.version if asks else None
    _walked(conv, _gone_on(_Looked(store, version, opaque), turns, asks, found), since)
    return turns, [hit[0] for hit in found.hits]


def _resumed(
    conv: Conversation, store: MemoryStore, state: _Looked, since: int
) -> tuple[list[int], list[Provenance | None]] | None:
    """:func:`looked_up` from ``state``, left by an earlier request of ``since`` turns.

    ``None``: a put since then may change what its lookups find.
    """
    slots = conv.slots
    new = _mattering(conv, since)
    asks = [*state.asks, *[(lookup_tokens(slots[index]), 0, None) for index in new]]
    found = store.lookup(asks, state.version, state.marks)
    if found is None:
        return None
    turns = [*state.turns, *new]
    known = len(state.turns)
    if found.moved:  # a turn found before is found by another token now, or not at all
        gone_on = _gone_on(
            _Looked(store, found.version, True, marks=state.marks), turns, asks, found
        )
    else:  # the turns found before are found as they were: only the new ones are added
        kept = _Looked(store, found.version, True, (state.turns, state.asks), state.marks)
        gone_on = _gone_on(kept, new, asks[known:], found, known)
    _walked(conv, gone_on, since)
    return turns, [hit[0] for hit in found.hits]


def _gone_on(
    state: _Looked, turns: list[int], asks: list[Ask], found: Found, skip: int = 0
) -> _Looked:
    """``state`` with the lookups of ``turns`` added.

    ``asks``: how each was asked; ``found.hits`` from ``skip`` on: what each found.
    """
    indices: list[int] = []
    again: list[Ask] = []
    marks: set[int] = set()
    for index, (tokens, start, _), (provenance, position, key) in zip(
        turns, asks, found.hits[skip:], strict=True
    ):
        marks.update(token_mark(token) for token in tokens[start:position])
        if provenance is not None and key is not None:
            indices.append(index)
            again.append((tokens, position, key))
    return _Looked(
        state.store,
        state.version,
        state.opaque,
        (state.turns + tuple(indices), state.asks + tuple(again)),
        state.marks | marks if marks else state.marks,
    )


def _walked(conv: Conversation, state: _Looked, since: int) -> None:
    size = _HIT_BYTES * len(state.turns) + _MARK_BYTES * len(state.marks)
    conv.walked(_LOOKED_UP, state, size, since)
