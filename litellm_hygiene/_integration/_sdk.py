"""Hygiene for calls no LiteLLM hook can change: sync calls, and overflow errors.

Sync ``litellm.completion`` and ``Router.completion`` run no hook whose changes reach
the wire, so :func:`completion` applies the same hygiene around the call itself (the
target is the model string the caller passes; a sync ``Router.completion`` picks its
deployment inside LiteLLM, out of reach). :func:`acompletion` does the same for async
calls and, unlike the callback alone, re-raises unmapped overflow errors as
``ContextWindowExceededError``. :class:`HygieneRouter` does that inside a Router, where
``context_window_fallbacks`` decide on the error's type.
"""

from __future__ import annotations

import threading
from typing import Any

import litellm
from litellm import ModelResponse
from litellm.exceptions import ContextWindowExceededError
from litellm.router import Router

from ._callback import HygieneCallback
from ._overflow_errors import retyped
from ._report import CallReport
from ._request import target_of

__all__ = ["HygieneRouter", "acompletion", "completion", "default_callback"]

_default: HygieneCallback | None = None
_default_lock = threading.Lock()


def default_callback() -> HygieneCallback:
    """The callback the wrappers use when none is passed.

    The one registered in ``litellm.callbacks`` if any, else one created on first use
    with default options.
    """
    global _default
    for callback in litellm.callbacks:
        if isinstance(callback, HygieneCallback):
            return callback
    with _default_lock:
        if _default is None:
            _default = HygieneCallback()
        return _default


def completion(
    model: str, messages: list[Any], *, hygiene: HygieneCallback | None = None, **kwargs: Any
) -> Any:
    """``litellm.completion`` with hygiene: the same arguments and return value.

    The messages are transformed for ``model`` (with ``custom_llm_provider``,
    ``api_base`` and ``model_info`` from ``kwargs`` when given), the answer is stamped and
    its report put in ``response._hidden_params["litellm_hygiene"]``, and an unmapped
    overflow error is raised as ``litellm.ContextWindowExceededError``.

    Args:
        model: The LiteLLM model string.
        messages: The conversation; never mutated.
        hygiene: The callback whose options and provenance store to use; by default
            the one registered in ``litellm.callbacks``, else a default one.
        **kwargs: Everything else ``litellm.completion`` accepts.
    """
    callback = hygiene or default_callback()
    call = {**kwargs, "model": model, "messages": messages}
    report = CallReport()
    prepared = callback.prepare_sync(call, report)
    if prepared is not None and prepared.changed:
        call = prepared.apply(call)
    try:
        response = litellm.completion(**call)
    except Exception as err:
        _raise_upgraded(callback, err, call)
        raise
    if isinstance(response, ModelResponse):
        callback.annotate_sync(call, response, report)
    return response


async def acompletion(
    model: str, messages: list[Any], *, hygiene: HygieneCallback | None = None, **kwargs: Any
) -> Any:
    """``litellm.acompletion`` with hygiene; see :func:`completion`.

    When the callback is also registered in ``litellm.callbacks``, its deployment hook
    finds the request already clean and changes nothing.
    """
    callback = hygiene or default_callback()
    call = {**kwargs, "model": model, "messages": messages}
    report = CallReport()
    prepared = await callback.prepare(call, report)
    if prepared is not None and prepared.changed:
        call = prepared.apply(call)
    try:
        response = await litellm.acompletion(**call)
    except Exception as err:
        _raise_upgraded(callback, err, call)
        raise
    if isinstance(response, ModelResponse):
        await callback.annotate(call, response, report)
    return response


def _raise_upgraded(callback: HygieneCallback, err: Exception, call: dict[str, Any]) -> None:
    if not callback.options.upgrade_overflow_errors:
        return
    corrected = retyped(err, target_of(call))
    if corrected is not None:
        upgraded = isinstance(corrected, ContextWindowExceededError)
        callback.stats["overflow_upgraded" if upgraded else "overflow_downgraded"] += 1
        raise corrected from err


class HygieneRouter(Router):
    """A ``litellm.Router`` whose context-window fallbacks also see unmapped overflows.

    The Router picks ``context_window_fallbacks`` only for ``ContextWindowExceededError``;
    this subclass re-types a deployment's unmapped token-overflow error before the Router
    decides on fallbacks. Everything else is the Router's own behaviour. Request hygiene
    itself comes from :class:`HygieneCallback` in ``litellm.callbacks``, which covers
    every fallback hop.
    """

    async def async_function_with_fallbacks_common_utils(
        self, e: Exception, *args: Any, **kwargs: Any
    ) -> Any:
        """Re-type an error by what it says, then let the Router decide on fallbacks.

        An unmapped overflow becomes ``ContextWindowExceededError`` (so the
        ``context_window_fallbacks`` fire); a look-alike LiteLLM mapped to it (a tool id
        over its length limit) becomes ``BadRequestError`` (so they do not).
        """
        corrected = retyped(e, None)
        if corrected is not None:
            corrected.__cause__ = e
            e = corrected
        return await super().async_function_with_fallbacks_common_utils(e, *args, **kwargs)
