"""Check OpenAI-shaped messages against the rules of the model they are sent to.

:func:`validate_messages` reports what each rule of :mod:`litellm_hygiene._rules` finds
in a request, in the words the provider would use: the same finders the pipeline runs
before it fixes, so a request the validator finds nothing in is exactly a request the
pipeline sends as it is. It never modifies the messages.

Unreadable input never raises: a ``messages`` that is not a list gives one
``malformed_request`` violation, an unreadable message a ``malformed_message`` one (the
rules then read the request with it kept at its place, as the integration sends it), so
a hook can always act on the result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from ._errors import InvalidMessageError
from ._executor import read_slots
from ._families import PROFILES, policy_for
from ._openai._decode import as_message_dict
from ._openai._positions import assistant_prefix_blocks, wire_positions
from ._openai._wire import OPENAI
from ._pipeline import context_for
from ._policy import Policy
from ._resolve import resolve_request
from ._rules import RULES, Conversation, Finding, Problem, Rule, ViolationCode
from ._rules._wording import DEFAULTS, wording
from ._target import TargetModel

__all__ = ["Violation", "ViolationCode", "validate_for_target", "validate_messages"]


class Violation(BaseModel):
    """One broken rule at one place in the request.

    Attributes:
        index: Position of the message in the caller's list; ``None`` for the request as
            a whole (``malformed_request``).
        field: Path inside the message (``tool_calls[0].id``, ``content[2]``); empty when
            the whole message is meant.
        code: Which rule is broken (see :mod:`litellm_hygiene._rules._codes`).
        provider_error: The error the provider returns for this shape, in its own words
            with the wire positions filled in (positions in merged wire messages are
            computed the way LiteLLM merges turns, best effort). ``None`` when no
            provider is known to reject it: the rule is then litellm_hygiene's own (the
            provider tolerates it, or LiteLLM's converter drops or patches it).
        message: A plain explanation for people.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    index: int | None
    field: str
    code: ViolationCode
    provider_error: str | None
    message: str


class _Words:
    """Words a rule's problems at the wire positions of the caller's messages."""

    def __init__(self, messages: Sequence[Any], conv: Conversation) -> None:
        self.conv = conv
        self.dicts: list[Any] = []
        for index, message in enumerate(messages):
            try:
                self.dicts.append(as_message_dict(message, index))
            except InvalidMessageError:
                self.dicts.append(None)
        self.wire = wire_positions(self.dicts, conv.ctx.target.family)

    def violation(self, rule: Rule, finding: Finding, problem: Problem) -> Violation:
        index = None
        if finding.index is not None and finding.index < len(self.conv.slots):
            index = self.conv.slots[finding.index].origin
        error = None
        if problem.kind is not None:
            values: dict[str, Any] = DEFAULTS | self._position(index, problem)
            values.update(problem.values)
            values["j"] = problem.call if problem.call is not None else 0
            profile = PROFILES[self.conv.ctx.target.family]
            words = profile.words(rule.code)
            error = wording(words, profile.paths, problem.kind, problem.path, values)
        return Violation(
            index=index,
            field=problem.field,
            code=rule.code,
            provider_error=error,
            message=problem.reason,
        )

    def _position(self, index: int | None, problem: Problem) -> dict[str, Any]:
        pos = self.wire[index] if index is not None and index < len(self.wire) else None
        local = problem.local
        msg = self.dicts[index] if index is not None and index < len(self.dicts) else None
        if problem.call is not None and msg is not None:
            local += assistant_prefix_blocks(msg) + problem.call
        wire_message = pos.message if pos else 0
        return {
            "i": index if index is not None else 0,
            "m": wire_message,
            "next_m": wire_message + 1,
            "c": (pos.offset if pos else 0) + local,
            "exact": self.conv.ctx.policy.tool_ids.exact_length or 0,
        }


def _malformed(err: InvalidMessageError) -> Violation:
    return Violation(
        index=err.index,
        field=err.field,
        code="malformed_message",
        provider_error=None,
        message=err.reason,
    )


def validate_for_target(
    messages: Sequence[Any],
    target: TargetModel,
    policy: Policy,
    *,
    source: TargetModel | None = None,
    params: Mapping[str, Any] | None = None,
) -> list[Violation]:
    """Every rule ``messages`` break for an already resolved target and policy.

    Args:
        messages: The request's OpenAI-shaped messages, as LiteLLM would send them
            (dicts, or pydantic message objects such as LiteLLM's ``Message``).
        target: Where the request goes.
        policy: What that target requires (usually ``policy_for(target)``).
        source: The model that produced unstamped assistant turns, when the caller
            knows it.
        params: The request's other parameters (``thinking``...), for the rules that
            read them.

    Returns:
        The violations, ordered by message index; empty when the request is clean.
        Linear in the size of the request; ``messages`` is not modified.
    """
    if not isinstance(messages, list | tuple):
        reason = f"messages must be a list, got {type(messages).__name__}"
        return [
            Violation(
                index=None, field="", code="malformed_request", provider_error=None, message=reason
            )
        ]
    ctx = context_for(target, policy, source)
    unreadable: list[InvalidMessageError] = []
    slots = read_slots(messages, ctx, OPENAI, unreadable.append)
    conv = Conversation(slots, ctx, OPENAI, params if isinstance(params, Mapping) else {})
    words = _Words(messages, conv)
    found = [_malformed(err) for err in unreadable]
    for rule in RULES:
        if rule.applies(ctx):
            found += [
                words.violation(rule, finding, problem)
                for finding in rule.find(conv)
                for problem in finding.problems
            ]
    count = len(messages)
    return sorted(found, key=lambda v: count if v.index is None else v.index)


def validate_messages(
    messages: Sequence[Any],
    model: str,
    *,
    tools: Sequence[Any] | None = None,
    custom_llm_provider: str | None = None,
    api_base: str | None = None,
    model_info: Mapping[str, Any] | None = None,
    source_model: str | None = None,
    params: Mapping[str, Any] | None = None,
) -> list[Violation]:
    """Every rule ``messages`` break for ``model``, with the provider error each causes.

    Args:
        messages: The request's OpenAI-shaped messages, as LiteLLM would send them.
        model: The model string as given to LiteLLM (``anthropic/claude-sonnet-4-5``).
        tools: The request's tool definitions. Accepted so a call mirrors LiteLLM's;
            no rule reads them.
        custom_llm_provider: LiteLLM's explicit provider, when given.
        api_base: The deployment's base URL, when given.
        model_info: A deployment's ``model_info`` overrides (``supports_vision``...).
        source_model: The model that produced the unstamped assistant turns, when known
            (a LiteLLM model string, resolved like ``model``).
        params: The request's other parameters as they would go to LiteLLM
            (``thinking``, ``reasoning_effort``...), for the rules that read them.

    Returns:
        The violations, ordered by message index; empty when the request is clean.
    """
    del tools
    target, source = resolve_request(
        model,
        custom_llm_provider=custom_llm_provider,
        api_base=api_base,
        model_info=model_info,
        source_model=source_model,
    )
    return validate_for_target(messages, target, policy_for(target), source=source, params=params)
