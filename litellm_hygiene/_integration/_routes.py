"""Which wire LiteLLM finally sends for a ``/v1/messages`` or ``/v1/responses`` call.

At LiteLLM's outer ``async_pre_call_deployment_hook`` a callback sees the arguments of
``litellm.anthropic_messages`` (call type ``anthropic_messages``) or ``litellm.aresponses``
(``aresponses``; the sync native handler calls it ``responses``). LiteLLM then sends that
shape natively, or bridges it to an inner call (``acompletion``; ``aresponses`` for
``/v1/messages`` to OpenAI) whose hook the callback sees next. A conversation is rewritten
once, in the shape that reaches the provider, so the callback must know which, and LiteLLM
decides only after the hook: this module decides the same way, from the hook's kwargs.

Where LiteLLM decides (``site-packages/litellm/``, 1.106.2 | 1.109.3 | 1.110.2):

- ``/v1/messages``: ``anthropic_messages_handler`` in
  ``llms/anthropic/pass_through/messages/handler.py:533-601`` |
  ``llms/anthropic/messages/native/handler.py:692-752`` | ``:626-884`` (the same file in
  1.110.0 and 1.110.1).
- ``/v1/responses``: ``responses()`` in ``responses/main.py:1263-1436`` | ``:1557-1765`` |
  ``:1555-1765`` (1.110 changed only signatures there: ``_dispatched_model_name`` lost its
  unused ``api_base``/``litellm_params``).

The public pieces (``litellm.get_llm_provider``, ``ProviderConfigManager``'s provider
configs, ``responses_api_bridge_check``) are called; the private rules around them are
restated here, and where a release line states a rule differently, a :class:`_Change`
records the first patch of each line that has it. A line nobody looked up is not guessed.

Fail open: an exception, a LiteLLM whose pieces moved, or a release line not looked up
gives ``None`` ("cannot tell"), logged once per cause by type, never raised into LiteLLM; a
release line not looked up is said once for both routes, as a warning that names the release
and what to do (the chat route does not depend on this module and keeps working).
Requests that LiteLLM hands to something other than its dispatch (``mock_response``, its
MCP gateway, the advisor and file-search emulations, a prompt template that may swap the
model, ``use_litellm_proxy``) also give ``None``.
"""

from __future__ import annotations

import functools
import importlib.metadata
import logging
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

import litellm

from .._litellm_lookup import quiet_litellm

__all__ = ["MessagesRoute", "ResponsesRoute", "messages_route", "responses_route"]

logger = logging.getLogger("litellm_hygiene")

MessagesRoute = Literal["anthropic", "responses", "chat"]
"""Where a ``/v1/messages`` call goes: sent natively in the Anthropic Messages shape,
bridged to an inner ``aresponses``, or bridged to an inner ``acompletion``."""

ResponsesRoute = Literal["responses", "chat"]
"""Where a ``/v1/responses`` call goes: sent natively, or bridged to an inner ``acompletion``."""

Release = tuple[int, int, int]
_Line = tuple[int, int]


class _UncheckedRelease(LookupError):
    """The installed LiteLLM's release line has not been looked up here."""


@dataclass(frozen=True)
class _Change:
    """A routing rule LiteLLM changed, and the first patch of each release line with it.

    Attributes:
        what: The rule, and where each release states it.
        first_patch: For each ``(major, minor)`` line looked up, the first patch that has
            the rule, or ``None`` when no release of the line has it.
    """

    what: str
    first_patch: Mapping[_Line, int | None]

    def holds(self, release: Release) -> bool:
        """Whether ``release`` has the rule; raises for a line not looked up."""
        line = release[:2]
        if line not in self.first_patch:
            shown = ".".join(map(str, release))
            raise _UncheckedRelease(f"LiteLLM {shown}: its release line's routes are not looked up")
        first = self.first_patch[line]
        return first is not None and release[2] >= first


_SERVES_API_BASE = _Change(
    what=(
        "/v1/messages: a provider's native Messages config counts only when it also serves "
        "the request's api_base (BaseAnthropicMessagesConfig.serves_api_base: Databricks and "
        "DashScope decline some bases). 1.109.3 native/handler.py:221-223; not in 1.106.2, "
        "1.106.12, 1.108.0, 1.108.14 (pass_through/messages/handler.py); 1.110.2 "
        "native/handler.py:274-294 (_native_messages_config)"
    ),
    first_patch={(1, 106): None, (1, 108): None, (1, 109): 0, (1, 110): 0},
)

_STOP_SEQUENCES_STAY_ON_CHAT = _Change(
    what=(
        "/v1/messages to OpenAI: any stop_sequences send it through chat completions, not the "
        "Responses API (which has no stop parameter). 1.109.3 native/handler.py:111-112; not "
        "in 1.106.2 (pass_through/messages/handler.py:71-87) nor 1.108.14; 1.110.2 "
        "native/handler.py:175-176"
    ),
    first_patch={(1, 106): None, (1, 108): None, (1, 109): 0, (1, 110): 0},
)

_DEPLOYMENT_MODE_IN_BRIDGE_CHECK = _Change(
    what=(
        "/v1/messages: the Responses-mode check behind the prefix-strip rule reads the "
        "deployment's model_info['mode'] (responses/bridge_check.py deployment_routing_mode). "
        "1.109.3 native/handler.py:70-78, 1.110.2 :72-80; 1.106.2 "
        "pass_through/messages/handler.py:48-52 reads the cost map only"
    ),
    first_patch={(1, 106): None, (1, 108): None, (1, 109): 0, (1, 110): 0},
)

_RESPONSES_PROVIDER_FROM_API_BASE = _Change(
    what=(
        "/v1/responses: with no custom_llm_provider, the provider inferred from the model also "
        "reads the request's api_base (get_llm_provider(litellm_params=...)). 1.109.3 "
        "responses/main.py:964-971 and :1563-1570; 1.106.2 :686-688 and :1269-1271 pass only "
        "base_url, which is never set there; first in 1.106.9 (not 1.106.8) and 1.108.0; 1.110.2 "
        ":960-971 and :1562-1571"
    ),
    first_patch={(1, 106): 9, (1, 108): 0, (1, 109): 0, (1, 110): 0},
)

_REQUESTED_PROVIDER_BY_ITS_PREFIX = _Change(
    what=(
        "/v1/messages: given a custom_llm_provider other than the model's own known, "
        "non-authenticating prefix, the model is resolved by its prefix alone, and that "
        "(model stripped, its provider) is kept when it names the same provider "
        "(_resolve_requested_provider). 1.110.2 native/handler.py:106-138 and :691; 1.109.3 "
        ":627-633 calls get_llm_provider with the custom_llm_provider only"
    ),
    first_patch={(1, 106): None, (1, 108): None, (1, 109): None, (1, 110): 0},
)


@dataclass(frozen=True)
class _Rules:
    """The installed release's side of each :class:`_Change` (hashable: a cache key)."""

    serves_api_base: bool
    stop_sequences_stay_on_chat: bool
    deployment_mode_in_bridge_check: bool
    responses_provider_from_api_base: bool
    requested_provider_by_its_prefix: bool


@functools.cache
def _installed_release() -> Release:
    found = re.match(r"(\d+)\.(\d+)\.(\d+)", importlib.metadata.version("litellm"))
    if found is None:
        raise _UncheckedRelease("LiteLLM's version is not major.minor.patch")
    major, minor, patch = (int(part) for part in found.groups())
    return (major, minor, patch)


@functools.cache
def _rules(release: Release) -> _Rules:
    return _Rules(
        serves_api_base=_SERVES_API_BASE.holds(release),
        stop_sequences_stay_on_chat=_STOP_SEQUENCES_STAY_ON_CHAT.holds(release),
        deployment_mode_in_bridge_check=_DEPLOYMENT_MODE_IN_BRIDGE_CHECK.holds(release),
        responses_provider_from_api_base=_RESPONSES_PROVIDER_FROM_API_BASE.holds(release),
        requested_provider_by_its_prefix=_REQUESTED_PROVIDER_BY_ITS_PREFIX.holds(release),
    )


_RESPONSES_API_PROVIDERS: Final = frozenset({"openai"})
"""Providers whose ``/v1/messages`` calls LiteLLM bridges to the Responses API, not chat."""

_CHAT_COMPLETIONS_PREFIX: Final = "openai/chat_completions/"
"""``openai/chat_completions/<model>`` asks ``/v1/responses`` for the chat bridge."""

_MESSAGES_SELF_SERVED: Final = ("mcp", "advisor_")
"""Tool types (prefixes) LiteLLM may serve itself on ``/v1/messages``: its MCP gateway and
the advisor loop (``interceptors/advisor.py``) replace the dispatch with their own calls."""

_RESPONSES_SELF_SERVED: Final = ("mcp", "file_search")
"""Tool types LiteLLM may serve itself on ``/v1/responses``: its MCP gateway, and the
file-search emulation for providers without a native one."""


@dataclass(frozen=True)
class _Request:
    """What the decision reads from the hook's kwargs (hashable: a cache key).

    ``provider`` is ``custom_llm_provider`` when the caller or the Router gave one;
    ``api_base`` may come from ``litellm_credential_name``; ``passes_through``: the Router's
    ``model_info.supported_endpoints`` names this endpoint; ``deployment_mode``: its
    ``model_info['mode']``; the rest say whether the kwarg of that name was given.
    """

    model: str
    provider: str | None
    api_base: str | None
    passes_through: bool
    deployment_mode: str | None
    stop_sequences: bool = False
    compaction: bool = False
    chat_api: bool = False


_REPORTED: set[tuple[str, str]] = set()
_REPORTED_LOCK = threading.Lock()


def _fail_open(call: str, err: Exception) -> None:
    """Log, once per call and cause, that the route of such calls cannot be told.

    A release line not looked up is one cause for both routes, said once per process.
    """
    unchecked = isinstance(err, _UncheckedRelease)
    key = ("", str(err)) if unchecked else (call, type(err).__name__)
    with _REPORTED_LOCK:
        if key in _REPORTED:
            return
        _REPORTED.add(key)
    if unchecked:
        logger.warning(
            "litellm_hygiene: %s: /v1/messages and /v1/responses requests go out without "
            "hygiene (chat completions are not affected); look the release line up in "
            "litellm_hygiene/_integration/_routes.py",
            err,
        )
        return
    logger.warning("litellm_hygiene: cannot tell where LiteLLM sends %s calls: %s", call, key[1])


def messages_route(kwargs: Mapping[str, Any]) -> MessagesRoute | None:
    """Where LiteLLM sends the ``anthropic_messages`` call whose hook kwargs these are.

    ``"anthropic"``: natively, in the Anthropic Messages shape (Anthropic; Claude on Bedrock
    invoke, Vertex AI, Azure AI, GitHub Copilot; DeepSeek, MiniMax...; any deployment whose
    ``model_info.supported_endpoints`` has ``/v1/messages``). ``"responses"``: bridged to an
    inner ``aresponses`` (OpenAI). ``"chat"``: bridged to an inner ``acompletion`` (Mistral,
    Gemini, ``bedrock/converse/``...). ``None``: cannot tell (see the module docstring).
    The kwargs are only read.
    """
    try:
        rules = _rules(_installed_release())
        request = _read(
            kwargs,
            "/v1/messages",
            _MESSAGES_SELF_SERVED,
            stop_sequences=bool(kwargs.get("stop_sequences")),
            compaction=kwargs.get("compaction") is not None,
        )
        if request is None:
            return None
        # LiteLLM's switch to keep OpenAI on chat completions, read per call as LiteLLM does.
        chat_only = bool(litellm.use_chat_completions_url_for_anthropic_messages)
        return _messages_route(request, rules, chat_only)
    except Exception as err:
        _fail_open("/v1/messages", err)
        return None


def responses_route(kwargs: Mapping[str, Any]) -> ResponsesRoute | None:
    """Where LiteLLM sends the ``aresponses`` (or sync ``responses``) call of these kwargs.

    ``"responses"``: natively, in the Responses shape (OpenAI, Azure, xAI...; any deployment
    whose ``model_info.supported_endpoints`` has ``/v1/responses``). ``"chat"``: bridged to
    an inner ``acompletion``: the provider has no Responses config, or the call asked for the
    bridge (``use_chat_completions_api=True``, ``openai/chat_completions/<model>``).
    ``None``: cannot tell (see the module docstring). The kwargs are only read.
    """
    try:
        rules = _rules(_installed_release())
        request = _read(
            kwargs,
            "/v1/responses",
            _RESPONSES_SELF_SERVED,
            chat_api=bool(kwargs.get("use_chat_completions_api")),
        )
        if request is None or kwargs.get("prompt_id") or request.model.startswith("litellm_agent/"):
            return None  # a prompt template may swap the model before the dispatch
        return _responses_route(request, rules)
    except Exception as err:
        _fail_open("/v1/responses", err)
        return None


def _read(
    kwargs: Mapping[str, Any], endpoint: str, self_served: tuple[str, ...], **facts: bool
) -> _Request | None:
    """The decision's inputs (``facts``: the route's own), or ``None`` if LiteLLM skips it."""
    model = kwargs.get("model")
    if not isinstance(model, str):
        raise TypeError("model is not a string")
    if isinstance(kwargs.get("mock_response"), str) or kwargs.get("use_litellm_proxy"):
        return None
    if _serves_itself(kwargs.get("tools"), self_served):
        return None
    provider = _after_credentials(kwargs, "custom_llm_provider")
    api_base = _after_credentials(kwargs, "api_base")
    model_info = kwargs.get("model_info")
    endpoints = model_info.get("supported_endpoints") if isinstance(model_info, dict) else None
    mode = model_info.get("mode") if isinstance(model_info, Mapping) else None
    return _Request(
        model=model,
        provider=provider if isinstance(provider, str) and provider else None,
        api_base=api_base if isinstance(api_base, str) else None,
        passes_through=isinstance(endpoints, (list, tuple)) and endpoint in endpoints,
        deployment_mode=mode if isinstance(mode, str) else None,
        **facts,
    )


def _serves_itself(tools: object, self_served: tuple[str, ...]) -> bool:
    if not isinstance(tools, (list, tuple)):
        return False
    for tool in tools:
        kind = tool.get("type") if isinstance(tool, dict) else None
        if isinstance(kind, str) and kind.startswith(self_served):
            return True
    return False


def _after_credentials(kwargs: Mapping[str, Any], key: str) -> object:
    """``kwargs[key]``, or what ``litellm_credential_name`` fills in after the hook.

    LiteLLM adds a named credential's values for the keys the call lacks, right after the
    deployment hook (1.106.2 ``utils.py:701-721``; 1.109.3 ``utils.py:768-788``).
    """
    if key in kwargs:
        return kwargs[key]
    name = kwargs.get("litellm_credential_name")
    if not isinstance(name, str) or not name:
        return None
    from litellm.litellm_core_utils.credential_accessor import CredentialAccessor

    credential: Any = CredentialAccessor.find_credential(name)
    return None if credential is None else credential.credential_values.get(key)


@functools.lru_cache(maxsize=1024)
def _messages_route(request: _Request, rules: _Rules, chat_only: bool) -> MessagesRoute:
    """``anthropic_messages`` (body, then handler) as the installed release runs it."""
    with quiet_litellm() as lib:
        # The body infers a missing provider from the model alone, and ignores a failure.
        requested = request.provider or _inferred_provider(lib, request.model, None, lenient=True)
        model, provider, _ = _resolved(lib, request.model, requested, request.api_base)
        if rules.requested_provider_by_its_prefix and requested is not None:
            model = _by_its_own_prefix(lib, request.model, requested, request.api_base) or model
        if request.passes_through or _has_native_messages_config(
            lib, model, provider, request.api_base, rules
        ):
            return "anthropic"
        if request.compaction or chat_only:
            return "chat"
        if rules.stop_sequences_stay_on_chat and request.stop_sequences:
            return "chat"
        if provider in _RESPONSES_API_PROVIDERS:
            return "responses"
        if provider is None or model == request.model:
            return "chat"
        # A Responses-only model id whose mode is lost once its prefix is stripped.
        lost = _responses_mode(lib, request.model, provider, request, rules) and not (
            _responses_mode(lib, model, provider, request, rules)
        )
        return "responses" if lost else "chat"


@functools.lru_cache(maxsize=1024)
def _responses_route(request: _Request, rules: _Rules) -> ResponsesRoute:
    """``aresponses``/``responses`` up to ``_bridges_to_chat_completions``, as installed."""
    model, chat_api = request.model, request.chat_api
    if model.startswith(_CHAT_COMPLETIONS_PREFIX) and len(model) > len(_CHAT_COMPLETIONS_PREFIX):
        model, chat_api = "openai/" + model[len(_CHAT_COMPLETIONS_PREFIX) :], True
    with quiet_litellm() as lib:
        inferred_from = request.api_base if rules.responses_provider_from_api_base else None
        provider = request.provider or _inferred_provider(lib, model, inferred_from)
        model, provider, api_base = _resolved(lib, model, provider, request.api_base)
        config = lib.utils.ProviderConfigManager.get_provider_responses_api_config(
            model=model.removeprefix("responses/"),
            provider=provider,
            api_base=api_base if api_base is not None else request.api_base,
        )
    native = config is not None or request.passes_through
    return "responses" if native and not chat_api else "chat"


def _declared_authenticating(lib: Any, model: str, provider: str | None) -> str | None:
    """The provider named, when ``get_llm_provider`` would run its OAuth device flow.

    For GitHub Copilot and ChatGPT, ``get_llm_provider`` fetches the key the flow unlocks;
    the named provider is its answer anyway, so it is taken without asking.
    """
    declared = provider or (model.split("/", 1)[0] if "/" in model else None)
    names = lib.constants.PROVIDERS_THAT_AUTHENTICATE_ON_PROVIDER_INFO
    return declared if declared in names else None


def _inferred_provider(
    lib: Any, model: str, api_base: str | None, *, lenient: bool = False
) -> str | None:
    """The provider LiteLLM infers when the call names none (``lenient``: ``None`` on failure)."""
    declared = _declared_authenticating(lib, model, None)
    if declared is not None:
        return declared
    try:
        return str(lib.get_llm_provider(model=model, api_base=api_base)[1])
    except Exception:
        if lenient:
            return None
        raise


def _resolved(
    lib: Any, model: str, provider: str | None, api_base: str | None
) -> tuple[str, str | None, str | None]:
    """``get_llm_provider``'s model (prefix stripped), provider and api_base."""
    declared = _declared_authenticating(lib, model, provider)
    if declared is not None:
        return model.removeprefix(f"{declared}/"), declared, api_base
    resolved, found, _, base = lib.get_llm_provider(
        model=model, custom_llm_provider=provider, api_base=api_base
    )
    return str(resolved), found, base


def _by_its_own_prefix(lib: Any, model: str, provider: str, api_base: str | None) -> str | None:
    """The model as resolved by its own prefix, when that names ``provider`` too (1.110)."""
    prefix = model.partition("/")[0]
    if (
        prefix == provider
        or prefix not in [member.value for member in lib.LlmProviders]
        or _declared_authenticating(lib, model, None) is not None
    ):
        return None
    try:
        own, found, _, _ = lib.get_llm_provider(model=model, api_base=api_base)
    except lib.BadRequestError:
        return None
    return str(own) if found == provider else None


def _has_native_messages_config(
    lib: Any, model: str, provider: str | None, api_base: str | None, rules: _Rules
) -> bool:
    providers = lib.LlmProviders
    if provider is None or provider not in [member.value for member in providers]:
        return False
    config = lib.utils.ProviderConfigManager.get_provider_anthropic_messages_config(
        model=model, provider=providers(provider)
    )
    if config is None:
        return False
    return not rules.serves_api_base or bool(config.serves_api_base(model, api_base))


def _responses_mode(lib: Any, model: str, provider: str, request: _Request, rules: _Rules) -> bool:
    """Whether LiteLLM's bridge check gives ``model`` the Responses mode."""
    pinned: dict[str, object] = {}
    if rules.deployment_mode_in_bridge_check:
        mode = request.deployment_mode
        pinned["deployment_model_info"] = None if mode is None else {"mode": mode}
    info, _ = lib.main.responses_api_bridge_check(
        model=model, custom_llm_provider=provider, **pinned
    )
    return bool(info.get("mode") == "responses")
