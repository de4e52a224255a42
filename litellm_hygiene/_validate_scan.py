"""The hot path's first question, answered in one cheap pass: is there anything to do?

:func:`scan_request` reads the message dicts once, front to back, stops at the first
rule a message certainly breaks, and builds nothing for a clean message but the map of
a turn's open tool calls. Its answer is a statement about what
:func:`~litellm_hygiene._validate.validate_for_target` would report, which is what the
hot path acts on:

- ``"clean"``: no violation at all (the request is sent as it is);
- ``"stamps"``: only ``hygiene_stamp`` violations, and nothing else the pipeline would
  change (the stamped messages are sent as shallow copies without the stamp key);
- ``"dirty"``: the validator reports something, and the pipeline has more to do than
  drop stamps: another violation, or in a stamped request something the validator
  lets pass (LiteLLM copes with it) that the pipeline still rewrites;
- ``"unsure"``: the scan cannot tell cheaply (inline images to measure, blank text,
  provenance to judge from the evidence in a turn, a message that is not a dict, an
  unreadable message): the validator decides.

It reads exactly the fields the validator's rules read, in the validator's terms (ids
as LiteLLM sends them, pairing per call/result key, turn kinds), and shares the rules'
own predicates where a judgement is more than a lookup (``id_fitter`` for ids,
``turn_offences`` for opaque provider data). The property tests in
``tests/test_perf_fast_path.py`` hold every answer against the validator.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from ._openai import STAMP_KEY
from ._openai._tools import THOUGHT_SEPARATOR
from ._policy import Policy
from ._target import TargetModel
from ._validate_gaps import rewritten_anyway
from ._validate_report import Request
from ._validate_rules import id_fitter
from ._validate_signatures import content_free_verdict, turn_offences

__all__ = ["Verdict", "scan_request"]

Verdict = Literal["clean", "stamps", "dirty", "unsure"]
"""What the validator would say: nothing, only stamps, more, or the scan cannot tell."""

_ROLES: Final = frozenset({"system", "developer", "user", "assistant", "tool", "function"})
_PSF: Final = "provider_specific_fields"
_OPAQUE_KEYS: Final = ("thinking_blocks", "reasoning_items", _PSF)


class _Dirty(Exception):
    """The message certainly breaks a rule other than the stamp: the validator reports it."""


class _Unsure(Exception):
    """The scan cannot tell cheaply whether the message breaks a rule."""


@dataclass(frozen=True)
class _Plan:
    """What the rules need from the target and policy, worked out once per pair."""

    policy: Policy
    id_fits: Callable[[str], bool]
    sends_signature: bool
    strip: tuple[str, ...]
    foreign_only: tuple[str, ...]
    may_judge: frozenset[str]
    pairing: bool
    merge_user: bool
    merge_assistant: bool
    user_first: bool
    reject_empty: bool
    images_blocked: bool


@functools.lru_cache(maxsize=64)
def _plan(target: TargetModel, policy: Policy) -> _Plan:
    foreign_only = tuple(sorted(policy.strip_foreign_fields - policy.strip_fields))
    return _Plan(
        policy=policy,
        id_fits=id_fitter(policy.tool_ids),
        sends_signature=Request((), target, policy).sends_signature,
        strip=tuple(sorted(policy.strip_fields)),
        foreign_only=foreign_only,
        may_judge=frozenset((*_OPAQUE_KEYS, *foreign_only)),
        pairing=policy.repair_tool_pairing,
        merge_user=policy.merge_user_turns,
        merge_assistant=policy.merge_assistant_turns,
        user_first=policy.require_user_first,
        reject_empty=policy.reject_empty_text,
        images_blocked=target.capabilities.images is False and policy.downgrade_images,
    )


class _Scan:
    """The state carried from message to message: turn order and open tool calls.

    Each method checks one kind of message and raises :class:`_Dirty` or
    :class:`_Unsure` when that settles the scan.
    """

    def __init__(self, plan: _Plan, request: Request) -> None:
        self.plan = plan
        self.request = request
        self.previous: str | None = None
        self.open: dict[Any, int] = {}
        self.unanswered = 0
        # Something the validator lets pass (LiteLLM copes with it) but the pipeline
        # still rewrites: a signature in an id, which LiteLLM strips for most targets but
        # the pipeline drops from foreign turns; empty text beside tool calls, which the
        # pipeline drops for targets that reject empty text; see rewritten_anyway for
        # the rest. A clean request may carry it (it is sent as it is, as the validator
        # allows); a stamped one then goes through the pipeline, not the stamps shortcut.
        self.rewritten = False

    def close(self) -> None:
        """Any message but a result ends the run of results after a turn's calls."""
        if self.unanswered:
            if self.plan.pairing:
                raise _Dirty  # a call without its result
            self.unanswered = 0
        if self.open:
            self.open = {}

    def turn(self, role: str) -> None:
        """Turn order (``check_turns``) for a user or assistant turn."""
        self.close()
        plan = self.plan
        previous = self.previous
        if role == "user":
            if previous == "user" and plan.merge_user:
                raise _Dirty
        elif previous is None:
            if plan.user_first:
                raise _Dirty
        elif previous == "assistant" and plan.merge_assistant:
            raise _Dirty
        self.previous = role

    def user(self, msg: dict[str, Any], role: str) -> None:
        """A user, system or developer message."""
        content = msg.get("content")
        if type(content) is str:
            if self.plan.reject_empty and (not content or content.isspace()):
                raise _Unsure
            return
        if content is None:
            if "content" in msg:
                raise _Dirty  # null_content
            if self.plan.reject_empty:
                raise _Unsure
            return
        _content_list(content, self.plan, text=self.plan.reject_empty, images=role == "user")

    def result(self, msg: dict[str, Any], role: str) -> None:
        """A tool or function result: its shape, its id, and the call it answers."""
        self.previous = "tool"
        plan = self.plan
        if role == "tool":
            raw = msg.get("tool_call_id")
            if not isinstance(raw, str):
                raise _Dirty  # malformed_message
            key: Any = self.request.sent_id(raw)
            if THOUGHT_SEPARATOR in raw:
                self.rewritten = True
        else:
            name = msg.get("name")
            if not isinstance(name, str):
                raise _Dirty  # malformed_message
            key = ("name", name)
        if plan.pairing:
            count = self.open.get(key)
            if not count:
                raise _Dirty  # a result without its call, or a second result
            self.open[key] = count - 1
            self.unanswered -= 1
        elif role == "tool" and not plan.id_fits(key):
            raise _Dirty
        # With pairing on, the key equals the id of a call already checked to fit.
        content = msg.get("content")
        if type(content) is not str:
            if content is None:
                if "content" in msg:
                    raise _Dirty  # null_content
            else:
                _content_list(content, plan, text=False, images=True)

    def assistant(self, msg: dict[str, Any], index: int) -> None:
        """Response-only fields, calls, and opaque provider data of an assistant turn."""
        plan = self.plan
        for key in plan.strip:
            if key in msg:
                raise _Dirty
        content = msg.get("content")
        if not (content is None or isinstance(content, str | list)):
            raise _Dirty  # malformed_message
        calls = msg.get("tool_calls")
        opaque = self._calls(calls) if calls is not None else False
        function_call = msg.get("function_call")
        if function_call is not None:
            self._function_call(function_call)
        if opaque or type(content) is list or not plan.may_judge.isdisjoint(msg):
            request = self.request
            verdict = content_free_verdict(request, msg)
            _, sites, keys, errors = turn_offences(request, index, msg, plan.foreign_only, verdict)
            if sites or keys or errors:
                raise _Dirty
            if not self.rewritten:
                self.rewritten = rewritten_anyway(plan.policy, msg, calls, verdict)
        if plan.reject_empty:
            if not (calls or function_call):
                _check_text(content)
            elif not (content is None or (type(content) is str and not _blank(content))):
                self.rewritten = True  # the pipeline drops empty text beside calls

    def _calls(self, calls: Any) -> bool:
        """Check the calls (shape, ids, collisions) and open them for pairing.

        Returns whether a call may carry a thought signature (judged with the turn).
        """
        if not isinstance(calls, list):
            raise _Dirty  # malformed_message
        opaque = False
        open_calls = self.open
        for call in calls:
            if not isinstance(call, dict):
                raise _Dirty
            function = call.get("function")
            if not isinstance(function, dict) or not isinstance(function.get("name"), str):
                raise _Dirty
            raw = call.get("id")
            if "arguments" not in function or not (raw is None or isinstance(raw, str)):
                raise _Dirty
            value = self.request.sent_id(raw) if raw else ""
            if value in open_calls or not self.plan.id_fits(value):
                raise _Dirty  # a bad id, or two calls of the message sharing one
            open_calls[value] = 1
            self.unanswered += 1
            if _PSF in call or _PSF in function:
                opaque = True
            elif raw and THOUGHT_SEPARATOR in raw:
                self.rewritten = True
                opaque = opaque or self.plan.sends_signature
        return opaque

    def _function_call(self, function_call: Any) -> None:
        if not isinstance(function_call, dict):
            raise _Dirty
        name = function_call.get("name")
        if not isinstance(name, str):
            raise _Dirty
        key = ("name", name)
        self.open[key] = self.open.get(key, 0) + 1
        self.unanswered += 1


def _blank(text: Any) -> bool:
    return isinstance(text, str) and (not text or text.isspace())


def _check_text(content: Any) -> None:
    """Content that may hold empty text: the validator's exemptions are left to it."""
    if content is None or content == [] or _blank(content):
        raise _Unsure
    if isinstance(content, list):
        for part in content:
            if isinstance(part, dict) and part.get("type") == "text" and _blank(part.get("text")):
                raise _Unsure


def _content_list(content: Any, plan: _Plan, *, text: bool, images: bool) -> None:
    """A list of parts: blank text, images the target cannot take or must measure."""
    if not isinstance(content, list):
        raise _Dirty  # malformed_message
    if text:
        _check_text(content)
    if images:
        _check_images(content, plan)


def _check_images(content: list[Any], plan: _Plan) -> None:
    """An image the target cannot take, or an inline one that must be measured."""
    for part in content:
        if not isinstance(part, dict) or part.get("type") != "image_url":
            continue
        url = part.get("image_url")
        if isinstance(url, dict):
            url = url.get("url")
        if not isinstance(url, str):
            continue
        if plan.images_blocked:
            raise _Dirty
        if url.startswith("data:"):
            raise _Unsure


def scan_request(
    messages: Sequence[Any],
    target: TargetModel,
    policy: Policy,
    source: TargetModel | None = None,
) -> Verdict:
    """What :func:`~litellm_hygiene._validate.validate_for_target` would report.

    Args:
        messages: The request's messages (a list or tuple).
        target: Where the request goes.
        policy: What the target requires.
        source: The declared producer of unstamped assistant turns.

    Returns:
        ``clean``, ``stamps``, ``dirty`` or ``unsure`` (see the module docstring).
    """
    # A Request without messages: the scan needs the rules' judgements, not the wire
    # positions that word a violation.
    scan = _Scan(_plan(target, policy), Request((), target, policy, source))
    stamped = False
    try:
        for index, msg in enumerate(messages):
            role = msg.get("role") if isinstance(msg, dict) else None
            if type(role) is not str or role not in _ROLES:
                return "unsure"  # the validator words what it cannot read
            if STAMP_KEY in msg:
                stamped = True
            if role == "tool" or role == "function":
                scan.result(msg, role)
                continue
            if role == "system" or role == "developer":
                scan.close()
            else:
                scan.turn(role)
            if role == "assistant":
                scan.assistant(msg, index)
            else:
                scan.user(msg, role)
    except _Dirty:
        return "dirty"
    except _Unsure:
        return "unsure"
    if scan.unanswered and scan.plan.pairing:
        return "dirty"
    if not stamped:
        return "clean"
    return "dirty" if scan.rewritten else "stamps"
