"""``sanitize_messages``: OpenAI-shaped messages in, messages valid for the target out."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from pydantic import BaseModel, ConfigDict

from ._anthropic._chat import native_model, read_as_chat
from ._anthropic._decode import ABSENT
from ._anthropic._wire import ANTHROPIC_NATIVE
from ._errors import InvalidMessageError
from ._executor import read_conversation
from ._openai._wire import OPENAI
from ._pipeline import TransformReport, context_for, run_rules
from ._policy import Policy
from ._recall import Seen
from ._resolve import resolve_request, resolve_target
from ._rules import Conversation, RuleContext
from ._rules.system_placement import lifted
from ._target import TargetModel
from ._view import Wire

__all__ = [
    "AnthropicSanitizeResult",
    "SanitizeResult",
    "read_request",
    "sanitize_anthropic_messages",
    "sanitize_for_target",
    "sanitize_messages",
    "sanitize_read",
]


class SanitizeResult(BaseModel):
    """New OpenAI-shaped messages for the target, and what was changed.

    Attributes:
        messages: The messages to send. A message no rule changed is the caller's own
            object (one that lost only its stamp is a shallow copy sharing the caller's
            values); only messages a rule changed are written anew.
        report: What each rule changed.
        target: The model the messages were transformed for.
        params: The request parameters given (``params=``) as they are to be sent: a
            rule may remove one the messages cannot be sent with (``thinking`` for
            Claude in an unfinished tool loop of another model's). The caller's own
            mapping when none was removed.
        dropped_params: The names of the parameters removed, to send without.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    messages: list[Any]
    report: TransformReport
    target: TargetModel
    params: Mapping[str, Any] = {}
    dropped_params: tuple[str, ...] = ()


_NOTHING: Final = TransformReport()


def sanitize_for_target(
    messages: Sequence[Any],
    target: TargetModel,
    *,
    tools: Sequence[Any] | None = None,
    policy: Policy | None = None,
    source: TargetModel | None = None,
    params: Mapping[str, Any] | None = None,
) -> SanitizeResult:
    """:func:`sanitize_messages` for an already-resolved target.

    The request is read once (one look at each message's keys); each rule then asks
    the facts whether it has anything to do, and decodes only the messages it fixes.
    A request no rule finds anything in is returned as it is.
    """
    del tools  # passed through untouched: no rule concerns tool definitions
    return sanitize_read(read_request(messages, context_for(target, policy, source), params))


def read_request(
    messages: Sequence[Any],
    ctx: RuleContext,
    params: Mapping[str, Any] | None = None,
    wire: Wire = OPENAI,
    on_error: Callable[[InvalidMessageError], None] | None = None,
    seen: Sequence[Seen] | None = None,
) -> Conversation:
    """The caller's messages (and parameters) as the rules read them.

    Each message is read once. ``wire``: the shape they are read in (chat messages of
    another request shape state that shape's wire facts, see ``_anthropic._wire``).
    ``on_error``: called for each message that cannot be read, which is then kept as
    it came, at its place (``read_slots``); without it, the error is raised.
    ``seen``: what a recall remembers of each message (see ``read_slots``).

    Raises:
        ConfigurationError: ``messages`` is not a list, or ``params`` not a mapping.
        InvalidMessageError: A message cannot be read (``on_error`` not given).
    """
    return read_conversation(messages, ctx, wire, params, on_error, seen)


def sanitize_read(conv: Conversation) -> SanitizeResult:
    """:func:`sanitize_for_target` of a request already read (see :func:`read_request`).

    The integration reads a request once for its provenance lookups and for the rules.
    """
    out, changes = run_rules(conv)
    target = conv.ctx.target
    params = conv.params
    if not changes:
        messages = [slot.raw for slot in conv.slots]
        return SanitizeResult.model_construct(
            messages=messages, report=_NOTHING, target=target, params=params, dropped_params=()
        )
    report = TransformReport(changes=tuple(changes))
    messages = [slot.raw for slot in out.slots]
    return SanitizeResult.model_construct(
        messages=messages,
        report=report,
        target=target,
        params=out.params,
        dropped_params=out.dropped_params(params),
    )


def sanitize_messages(
    messages: Sequence[Any],
    model: str,
    *,
    tools: Sequence[Any] | None = None,
    custom_llm_provider: str | None = None,
    api_base: str | None = None,
    model_info: Mapping[str, Any] | None = None,
    source_model: str | None = None,
    policy: Policy | None = None,
    params: Mapping[str, Any] | None = None,
) -> SanitizeResult:
    """Make OpenAI-shaped messages valid for ``model``, per request.

    Args:
        messages: The conversation as LiteLLM accepts it; never mutated.
        model: The target model string as given to LiteLLM.
        tools: The request's tools (passed through).
        custom_llm_provider: LiteLLM's explicit provider, when given.
        api_base: The deployment's base URL, when given.
        model_info: A deployment's ``model_info`` overrides.
        source_model: The model that produced assistant turns carrying no provenance
            stamp (for example the model of the previous requests).
        policy: Override the target family's policy.
        params: The request's other parameters as they would go to LiteLLM
            (``thinking``, ``reasoning_effort``, ...), for the rules that read them;
            ``result.params`` is what to send, ``result.dropped_params`` what to leave
            out. Never mutated.

    Returns:
        The new messages and a report. Running it again on its output (with its
        ``params``) changes nothing.

    Raises:
        InvalidMessageError: A message cannot be read.
    """
    target, source = resolve_request(
        model,
        custom_llm_provider=custom_llm_provider,
        api_base=api_base,
        model_info=model_info,
        source_model=source_model,
    )
    return sanitize_for_target(
        messages, target, tools=tools, policy=policy, source=source, params=params
    )


class AnthropicSanitizeResult(BaseModel):
    """A ``/v1/messages`` request's ``messages`` and ``system`` for the target.

    Attributes:
        messages: The messages to send, in Anthropic's form.
        system: The system prompt to send (``None``: none).
        report: What each rule changed; message indexes count the request's neutral
            messages (its system prompt first, then one per message, and one per tool
            result, as :func:`from_anthropic` reads them).
        target: The model the messages were transformed for.
        params: The parameters given, as they are to be sent.
        dropped_params: The names of the parameters removed, to send without.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    messages: list[Any]
    system: Any = None
    report: TransformReport
    target: TargetModel
    params: Mapping[str, Any] = {}
    dropped_params: tuple[str, ...] = ()


def sanitize_anthropic_messages(
    messages: Sequence[Any],
    model: str,
    *,
    system: Any = None,
    custom_llm_provider: str | None = None,
    api_base: str | None = None,
    model_info: Mapping[str, Any] | None = None,
    source_model: str | None = None,
    policy: Policy | None = None,
    params: Mapping[str, Any] | None = None,
) -> AnthropicSanitizeResult:
    """Make an Anthropic Messages request (``/v1/messages``) valid for ``model``.

    The same rules as :func:`sanitize_messages`, for a request LiteLLM sends to its
    provider as it is (Anthropic; Claude on Bedrock, Vertex AI, Azure AI; DeepSeek's
    Anthropic endpoint): a thinking block is sent where it stands, unsigned ones too.
    Arguments as :func:`sanitize_messages`'s; ``system`` is the request's own.

    Returns:
        The messages and system prompt to send, and a report. A request no rule changes
        comes back as the caller's own objects.

    Raises:
        InvalidMessageError: A message, or ``system``, cannot be read.
    """
    target, source = resolve_request(
        model,
        custom_llm_provider=custom_llm_provider,
        api_base=api_base,
        model_info=model_info,
        source_model=source_model,
    )
    native = native_model(model, target)
    if native != model:  # Claude on Bedrock: this shape goes to its invoke route
        target = resolve_target(
            native,
            custom_llm_provider=custom_llm_provider,
            api_base=api_base,
            model_info=model_info,
        )
    chat = read_as_chat(messages, ABSENT if system is None else system)
    if chat.unread:
        raise chat.unread[0]
    ctx = context_for(target, policy, source)
    result = sanitize_read(read_request(chat.messages, ctx, params, ANTHROPIC_NATIVE))
    if chat.lifted:
        report = TransformReport(changes=(*lifted(chat.lifted), *result.report.changes))
        result = result.model_copy(update={"report": report})
    if not result.report.changed:
        return AnthropicSanitizeResult(
            messages=list(messages),
            system=system,
            report=result.report,
            target=target,
            params=result.params,
        )
    written, written_system = chat.written(result.messages)
    return AnthropicSanitizeResult(
        messages=written,
        system=written_system,
        report=result.report,
        target=target,
        params=result.params,
        dropped_params=result.dropped_params,
    )
