"""The request's core: from a deployment call's kwargs to the messages to send.

:func:`preparing_call` is what the request side (:mod:`._prepare`) runs for a call:
the steps of its preparation, written once for the sync and the async driver
(:mod:`._steps`). Pure apart from the provenance store lookups: the target is resolved
from what LiteLLM knows at the deployment (the model string, ``custom_llm_provider``,
``api_base``, the deployment's ``model_info``), stamps lost by clients are restored from
the store, the conversation is read and the rules run through the one core the public
functions use too (``_executor``), and the window and the fit trim it when configured.
A call of another shape is read as chat messages by its shape's view and written back
in its own shape.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Protocol

from litellm.exceptions import ContextWindowExceededError

from .._errors import InvalidMessageError
from .._executor import read_conversation, run_rules, unread_of
from .._families import policy_for
from .._openai._decode import read_stamp
from .._openai._parts import inline_image_chars
from .._openai._wire import OPENAI
from .._pipeline import context_for
from .._policy import Policy
from .._recall import Recall, Seen
from .._resolve import target_of
from .._rules import REQUEST_PARAMS, Conversation
from .._rules._conversation import raws_of
from .._rules._findings import counted
from .._rules.hygiene_stamp import BOOKKEEPING
from .._target import TargetModel
from .._view import Stamp, Wire
from ._engine import HygieneEngine
from ._lookups import looked_up, lookup_keys_of, lookups
from ._options import HygieneOptions
from ._prepared import Prepared
from ._report import CallReport
from ._shapes import RequestShape
from ._steps import Lookup, Steps, Work
from ._store import MemoryStore, Provenance, ProvenanceStore
from ._trim_request import trim_request

__all__ = ["ShapedCall", "preparing", "preparing_call", "preparing_shaped"]


def preparing_call(
    engine: HygieneEngine, served: RequestShape, kwargs: Mapping[str, Any], report: CallReport
) -> Steps[Prepared | None]:
    """The steps preparing a call of the ``served`` shape; ``None``: it goes out as it is.

    ``None`` when the call holds no conversation, hygiene is switched off, or it failed
    open; the engine counts what became of the call (:meth:`HygieneEngine.accepted`).

    Raises:
        ContextWindowExceededError: The request cannot fit its deployment, or is
            predicted to overflow and ``reject_predicted_overflow`` is set.
        BadRequestError: ``fail_closed`` is set and a message cannot be read.
        Exception: ``fail_closed`` is set and hygiene failed internally.
    """
    conversation = kwargs.get(served.conversation)
    if not isinstance(conversation, list) or not conversation:
        return None
    engine.stats["requests"] += 1
    if not engine.options.enabled:
        return None
    options, store, recall = engine.options, engine.store, engine.recall
    call: Mapping[str, Any] = kwargs
    try:
        if served.view is not None:
            call, prepared = yield from preparing_shaped(
                kwargs, options, store, served.view, recall
            )
        else:
            prepared = yield from preparing(kwargs, options, store, recall=recall)
    except ContextWindowExceededError:
        engine.cannot_fit(report)
        raise
    except Exception as err:
        engine.failed(err, report, kwargs)
        return None
    return engine.accepted(call, prepared, report)


def preparing(
    kwargs: Mapping[str, Any],
    options: HygieneOptions,
    store: ProvenanceStore | None,
    wire: Wire = OPENAI,
    recall: Recall | None = None,
    seen: Sequence[Seen] | None = None,
) -> Steps[Prepared]:
    """Transform a call's messages for its deployment, restoring stamps from ``store``.

    ``wire``: the shape the messages are read in (see ``read_conversation``); ``recall``:
    what was worked out for the conversations seen before (see ``_recall``); ``seen``:
    what it remembers of each message, where the call's own reader aligned it. The steps of
    the work (see :mod:`._steps`), which the engine drives in an event loop
    (``_steps.run``) or here (``run_sync``).
    """
    messages: Sequence[Any] = kwargs["messages"]
    # Decoding and re-encoding large images, or walking a huge transcript (fingerprints
    # included), would hold the event loop (and every other request on this worker) for
    # its whole duration: do it on a worker thread (Pillow releases the GIL while it
    # works). Fitting counts the tokens of every message: heavy from fewer messages.
    # Only the store lookup, which awaits, stays on the loop.
    heavy = _heavy(messages)
    heavy_finish = heavy or (options.fit_to_context and len(messages) > HEAVY_FIT_MESSAGES)
    target = target_of(kwargs)
    if store is None or type(store) is MemoryStore:
        # Nothing to await: read, look up and rewrite in one step, so the collector
        # (paused while it runs) never sees the request half done.
        done: Prepared = yield Work(
            _prepare_here, (kwargs, target, options, store, wire, recall, seen), heavy_finish
        )
        return done
    read: tuple[Conversation, Wanted] = yield Work(
        _read, (kwargs, target, options, store, wire, recall, seen), heavy
    )
    conv, wanted = read
    found: list[Provenance | None] = []
    error: str | None = None
    if wanted:
        try:
            found = yield Lookup([keys for _, keys in wanted])
        except Exception as err:  # a store failure must not cost the transformation
            wanted, error = [], type(err).__name__
    looked_up = [index for index, _ in wanted]
    finished: Prepared = yield Work(
        _finish, (kwargs, conv, options, looked_up, found, error), heavy_finish
    )
    return finished


class ShapedCall(Protocol):
    """A call of another request shape, read as chat messages (``_shapes.ChatView``)."""

    @property
    def kwargs(self) -> dict[str, Any]:
        """The call's kwargs for the core, its ``messages`` the chat messages."""

    @property
    def wire(self) -> Wire:
        """The wire facts of the route the call is sent on."""

    @property
    def unread(self) -> Sequence[InvalidMessageError]:
        """Why each message of the call that could not be read could not."""

    @property
    def seen(self) -> Sequence[Seen] | None:
        """What a recall remembers of each chat message, where the reader aligned them."""

    def written(self, prepared: Prepared) -> Prepared:
        """``prepared``, its messages written back in the call's own shape."""


def preparing_shaped(
    kwargs: Mapping[str, Any],
    options: HygieneOptions,
    store: ProvenanceStore | None,
    view_of: Callable[[Mapping[str, Any], Recall | None], ShapedCall],
    recall: Recall | None = None,
) -> Steps[tuple[dict[str, Any], Prepared]]:
    """:func:`preparing` for a call of another shape (``/v1/messages``, ``/v1/responses``).

    ``view_of`` reads the call as chat messages (with ``recall``); the result is written
    back in its own shape. Reading and writing are part of the work: done with the collector paused,
    and on a worker thread when the call is heavy, like the rules' own work. The steps
    end with the chat-form kwargs the core read, and the prepared request.
    """
    heavy, heavy_finish = _heavy_shaped(kwargs, options)
    if store is None or type(store) is MemoryStore:
        done: tuple[dict[str, Any], Prepared] = yield Work(
            _shaped_here, (kwargs, view_of, options, store, recall), heavy_finish
        )
        return done
    view: ShapedCall = yield Work(view_of, (kwargs, recall), heavy)
    _check_read(view, options)
    prepared = yield from preparing(view.kwargs, options, store, view.wire, recall, view.seen)
    written: Prepared = yield Work(view.written, (prepared,), heavy)
    return view.kwargs, written


def _shaped_here(
    kwargs: Mapping[str, Any],
    view_of: Callable[[Mapping[str, Any], Recall | None], ShapedCall],
    options: HygieneOptions,
    store: MemoryStore | None,
    recall: Recall | None = None,
) -> tuple[dict[str, Any], Prepared]:
    """:func:`preparing_shaped` in one step, for no store or an in-process one."""
    view = view_of(kwargs, recall)
    _check_read(view, options)
    call = view.kwargs
    prepared = _prepare_here(call, target_of(call), options, store, view.wire, recall, view.seen)
    return call, view.written(prepared)


def _check_read(view: ShapedCall, options: HygieneOptions) -> None:
    """With ``fail_closed``, a message the call's reader could not read rejects it.

    Raises:
        InvalidMessageError: The first such message, as its reader found it.
    """
    if options.fail_closed and view.unread:
        raise view.unread[0]


def _heavy_shaped(kwargs: Mapping[str, Any], options: HygieneOptions) -> tuple[bool, bool]:
    """Whether reading (and then fitting) a call of another shape may stall the loop.

    Counted by its messages or input items, as :func:`_heavy` counts chat messages.
    """
    listed = kwargs.get("messages", kwargs.get("input"))
    count = len(listed) if isinstance(listed, list) else 0
    heavy = count > HEAVY_MESSAGES
    return heavy, heavy or (options.fit_to_context and count > HEAVY_FIT_MESSAGES)


def _prepare_here(
    kwargs: Mapping[str, Any],
    target: TargetModel,
    options: HygieneOptions,
    store: MemoryStore | None,
    wire: Wire = OPENAI,
    recall: Recall | None = None,
    seen: Sequence[Seen] | None = None,
) -> Prepared:
    """:func:`preparing` for no store or an in-process one (its lookups are calls).

    Each turn's lookup keys are hashed only as far as the store needs them: a turn it
    knows by its first key costs one hash, and a token no entry was made from none.
    The lookups go on from where the conversation's last request left them
    (:func:`~._lookups.looked_up`).
    """
    conv = _conversation(kwargs, target, options, wire, recall, seen)
    if store is None:
        return _finish(kwargs, conv, options, [], [])
    try:
        turns, found = looked_up(conv, store)
    except Exception as err:  # a store failure must not cost the transformation
        return _finish(kwargs, conv, options, [], [], type(err).__name__)
    return _finish(kwargs, conv, options, turns, found)


HEAVY_IMAGE_CHARS = 1 << 20
"""Inline image data (base64 characters) above which hygiene runs off the event loop."""
HEAVY_MESSAGES = 2000
"""Messages above which hygiene runs off the event loop."""
HEAVY_FIT_MESSAGES = 200
"""Messages above which fitting (a token count per message) runs off the event loop."""


def _heavy(messages: Sequence[Any]) -> bool:
    """Whether transforming ``messages`` may take long enough to stall the event loop."""
    if len(messages) > HEAVY_MESSAGES:
        return True
    return inline_image_chars(messages, HEAVY_IMAGE_CHARS) > HEAVY_IMAGE_CHARS


Wanted = list[tuple[int, tuple[str, ...]]]
"""Assistant turns to look up in the provenance store: (index, lookup keys)."""


def rule_params(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """The call's parameters that some rule reads (``REQUEST_PARAMS``), as given."""
    return {name: kwargs[name] for name in REQUEST_PARAMS if name in kwargs}


def _conversation(
    kwargs: Mapping[str, Any],
    target: TargetModel,
    options: HygieneOptions,
    wire: Wire,
    recall: Recall | None = None,
    seen: Sequence[Seen] | None = None,
) -> Conversation:
    """The request as the rules read it: its messages, and the parameters they read.

    A message that cannot be read is kept as it came, at its place, and the rules work
    on the rest; with ``fail_closed`` it is raised instead, to reject the request.
    With a ``recall``, the request is aligned with the conversation it continues and
    remembered (its new messages copied) before the rules run: what they work out for
    each message lands in its ``Seen``. ``seen``: those ``Seen``, where the call's own
    reader aligned the call in its shape (the chat messages are not aligned again).
    """
    ctx = context_for(target, _policy(target, options))
    keep = None if options.fail_closed else _keep
    messages = kwargs["messages"]
    params = rule_params(kwargs)
    if recall is None or not isinstance(messages, list) or not messages:
        return read_conversation(messages, ctx, wire, params, keep)
    space = type(wire).__name__
    if seen is None:
        aligned = recall.align(space, messages)
        if aligned.seen is None:  # not remembered (the first request of its beginning)
            return read_conversation(messages, ctx, wire, params, keep)
        recall.keep(aligned, messages)
        seen = aligned.seen
    ctx = replace(ctx, recall_key=recall.key((space, target, ctx.policy, ctx.source)))
    return read_conversation(messages, ctx, wire, params, keep, seen)


def _keep(err: InvalidMessageError) -> None:
    """Keep an unreadable message (its slot says why: ``unread_of``)."""


def _read(
    kwargs: Mapping[str, Any],
    target: TargetModel,
    options: HygieneOptions,
    store: ProvenanceStore | None,
    wire: Wire = OPENAI,
    recall: Recall | None = None,
    seen: Sequence[Seen] | None = None,
) -> tuple[Conversation, Wanted]:
    """The request as the rules read it, and the turns to look up with their keys."""
    conv = _conversation(kwargs, target, options, wire, recall, seen)
    if store is None:
        return conv, []
    return conv, [
        (index, keys) for index in lookups(conv) if (keys := lookup_keys_of(conv.slots[index]))
    ]


def _finish(
    kwargs: Mapping[str, Any],
    conv: Conversation,
    options: HygieneOptions,
    looked_up: Sequence[int],
    found: Sequence[Provenance | None],
    store_error: str | None = None,
) -> Prepared:
    messages: Sequence[Any] = kwargs["messages"]
    target = conv.ctx.target
    restored = _restore(conv, looked_up, found)
    out, ruled = run_rules(conv)
    sent = raws_of(out.slots)
    trim = trim_request(sent, out.params, kwargs, options, conv.ctx, conv.wire)
    unread = unread_of(conv)
    if not ruled and trim is None:  # what the store restored only informed the rules
        return Prepared(
            target=target,
            messages=messages,
            restored=restored,
            store_error=store_error,
            unread=unread,
        )
    changes = counted(ruled, BOOKKEEPING)
    for kind, number in (trim.changes if trim else {}).items():
        changes[kind] = changes.get(kind, 0) + number
    remembered = conv.ctx.recall_key is not None and trim is None
    return Prepared(
        target=target,
        messages=sent if trim is None else trim.messages,
        changes=changes,
        restored=restored,
        changed=True,
        store_error=store_error,
        trimmed=None if trim is None else trim.as_report(),
        drop_params=out.dropped_params(conv.params) + (() if trim is None else trim.drop_params),
        unread=unread,
        slots=out.slots if remembered else None,
    )


def _policy(target: TargetModel, options: HygieneOptions) -> Policy:
    policy = policy_for(target)
    if options.unknown_provenance is None:
        return policy
    return policy.model_copy(update={"unknown_provenance": options.unknown_provenance})


_UNREAD: Any = object()


def _restore(
    conv: Conversation, looked_up: Sequence[int], found: Sequence[Provenance | None]
) -> int:
    """Put the store's provenance on the turns it found; how many it found.

    The provenance rides on each turn's slot (``Slot.restored``), where the rules read
    it as they read a stamp on the message: the caller's message is not copied to
    carry a stamp the last rule would only remove again. The slots are this request's
    own, read for it and not yet seen by any rule.
    """
    # Most turns share one provenance, most often one object (the in-process store
    # shares one per value): each is read once, by identity first (a frozen
    # dataclass's hash is a Python call), then by value.
    by_object: dict[int, Stamp | None] = {}
    stamps: dict[Provenance, Stamp | None] = {}
    restored = 0
    slots = conv.slots
    for index, prov in zip(looked_up, found, strict=True):
        if prov is None:
            continue
        stamp = by_object.get(id(prov), _UNREAD)
        if stamp is _UNREAD:
            stamp = stamps.get(prov, _UNREAD)
            if stamp is _UNREAD:
                stamp = stamps[prov] = read_stamp(prov.as_stamp())  # as on the wire
            by_object[id(prov)] = stamp
        slots[index].restored = stamp
        restored += 1
    return restored
