"""Check OpenAI-shaped messages against the rules of the model they are sent to.

:func:`validate_messages` is the oracle for tests of the transformation pipeline and
for the command line; :func:`validate_for_target` is the same check for a caller that
has already resolved the target (the proxy hook's "is there anything to do?").

The check reads the message dicts directly, in a fixed number of linear passes, and
never modifies them. It does not convert the conversation into the neutral model: an
assistant turn is decoded only when its provenance must be judged from evidence inside
it (see :mod:`litellm_hygiene._validate_signatures`).

Rules, in the order they are reported for one message:

1. message shape (``malformed_message``): what LiteLLM cannot convert;
2. tool-call ids as LiteLLM sends them (``Policy.tool_ids``);
3. call/result pairing (``Policy.repair_tool_pairing``);
4. turn order (``merge_user_turns``, ``merge_assistant_turns``, ``require_user_first``);
5. provenance: hygiene stamp, response-only fields, foreign or non-base64 signatures;
6. images (capabilities, ``max_image_bytes``, ``max_image_side``,
   ``max_total_image_bytes``);
7. empty text (``reject_empty_text``).

Unreadable input never raises: a ``messages`` that is not a list gives one
``malformed_request`` violation, an unreadable message a ``malformed_message`` one
(the other rules skip what they cannot read), so a hook can always act on the result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._errors import InvalidMessageError
from ._openai._decode import as_message_dict
from ._policy import Policy, policy_for
from ._target import TargetModel, resolve_request
from ._validate_content import check_empty_text, check_images, check_null_content
from ._validate_report import Request
from ._validate_rules import check_pairing, check_tool_ids, check_turns
from ._validate_signatures import check_provenance
from ._validate_violation import CODE_RULES, Violation, ViolationCode
from ._validate_wire import Msg

__all__ = ["CODE_RULES", "Violation", "ViolationCode", "validate_for_target", "validate_messages"]

_ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})


def _call_problem(call: Any, where: str) -> tuple[str, str] | None:
    if not isinstance(call, dict):
        return where, "expected a tool call object"
    function = call.get("function")
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        return f"{where}.function", "expected an object with the tool's 'name'"
    if "arguments" not in function:
        return f"{where}.function.arguments", "missing"
    if not isinstance(call.get("id"), str | None):
        return f"{where}.id", "expected a string"
    return None


def _assistant_problem(msg: Msg) -> tuple[str, str] | None:
    calls = msg.get("tool_calls")
    if calls is not None and not isinstance(calls, list):
        return "tool_calls", f"expected a list, got {type(calls).__name__}"
    for j, call in enumerate(calls or ()):
        problem = _call_problem(call, f"tool_calls[{j}]")
        if problem is not None:
            return problem
    function_call = msg.get("function_call")
    if function_call is not None and not (
        isinstance(function_call, dict) and isinstance(function_call.get("name"), str)
    ):
        return "function_call", "expected an object with a 'name'"
    return None


def _shape_problem(msg: Msg) -> tuple[str, str] | None:
    """The first field LiteLLM could not convert, and why; ``None`` when readable."""
    content = msg.get("content")
    if content is not None and not isinstance(content, str | list):
        return (
            "content",
            f"expected a string, a list of parts or null; got {type(content).__name__}",
        )
    role = msg["role"]
    if role == "tool" and not isinstance(msg.get("tool_call_id"), str):
        return "tool_call_id", "a tool message must name the call it answers"
    if role == "function" and not isinstance(msg.get("name"), str):
        return "name", "a function message must name its function"
    return _assistant_problem(msg) if role == "assistant" else None


def _malformed(index: int, field: str, reason: str) -> Violation:
    return Violation(
        index=index, field=field, code="malformed_message", provider_error=None, message=reason
    )


def _read_one(message: Any, index: int) -> tuple[Msg | None, tuple[str, str] | None]:
    try:
        msg = message if isinstance(message, dict) else as_message_dict(message, index)
    except InvalidMessageError as err:
        return None, (err.field, err.reason)
    role = msg.get("role")
    if not isinstance(role, str) or role not in _ROLES:
        return None, ("role", f"missing or unknown role {role!r}")
    return msg, _shape_problem(msg)


def _read(messages: Sequence[Any]) -> tuple[list[Msg | None], list[Violation]]:
    """The messages as dicts (``None`` when unreadable), and what could not be read."""
    read: list[Msg | None] = []
    problems: list[Violation] = []
    for index, message in enumerate(messages):
        msg, problem = _read_one(message, index)
        if problem is not None:
            problems.append(_malformed(index, *problem))
        read.append(msg)
    return read, problems


def _ordered(violations: list[Violation], count: int) -> list[Violation]:
    """By message (request-level last), rule order kept; exact repeats dropped."""
    seen: set[tuple[int | None, str, str]] = set()
    unique: list[Violation] = []
    for violation in violations:
        key = (violation.index, violation.field, violation.code)
        if key not in seen:
            seen.add(key)
            unique.append(violation)
    return sorted(unique, key=lambda v: count if v.index is None else v.index)


def validate_for_target(
    messages: Sequence[Any],
    target: TargetModel,
    policy: Policy,
    *,
    source: TargetModel | None = None,
) -> list[Violation]:
    """Every rule ``messages`` break for an already resolved target and policy.

    Args:
        messages: The request's OpenAI-shaped messages, as LiteLLM would send them
            (dicts, or pydantic message objects such as LiteLLM's ``Message``).
        target: Where the request goes.
        policy: What that target requires (usually ``policy_for(target)``).
        source: The model that produced unstamped assistant turns, when the caller
            knows it (applied like :func:`~litellm_hygiene._provenance.attribute_source`).

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
    read, problems = _read(messages)
    request = Request(read, target, policy, source)
    found = [
        *problems,
        *check_tool_ids(request),
        *(check_pairing(request) if policy.repair_tool_pairing else ()),
        *check_turns(request),
        *check_provenance(request),
        *check_images(request),
        *check_empty_text(request),
        *check_null_content(request),
    ]
    return _ordered(found, len(messages))


def validate_messages(
    messages: Sequence[Any],
    model: str,
    *,
    tools: Sequence[Any] | None = None,
    custom_llm_provider: str | None = None,
    api_base: str | None = None,
    model_info: Mapping[str, Any] | None = None,
    source_model: str | None = None,
) -> list[Violation]:
    """Every rule ``messages`` break for ``model``, with the provider error each causes.

    Args:
        messages: The request's OpenAI-shaped messages, as LiteLLM would send them.
        model: The model string as given to LiteLLM (``anthropic/claude-sonnet-4-5``).
        tools: The request's tool definitions. Accepted so a call mirrors LiteLLM's;
            no rule reads them yet (no Policy field concerns tool definitions).
        custom_llm_provider: LiteLLM's explicit provider, when given.
        api_base: The deployment's base URL, when given.
        model_info: A deployment's ``model_info`` overrides (``supports_vision``...).
        source_model: The model that produced the unstamped assistant turns, when known
            (a LiteLLM model string, resolved like ``model``).

    Returns:
        The violations, ordered by message index; empty when the request is clean.
    """
    del tools  # reserved: see Args
    target, source = resolve_request(
        model,
        custom_llm_provider=custom_llm_provider,
        api_base=api_base,
        model_info=model_info,
        source_model=source_model,
    )
    return validate_for_target(messages, target, policy_for(target), source=source)
