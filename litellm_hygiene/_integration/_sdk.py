"""Hygiene for calls no LiteLLM hook can change: sync calls, and overflow errors.

Sync ``litellm.completion`` and ``Router.completion`` run no hook whose changes reach
the wire, so :func:`completion` applies the same hygiene around the call itself (the
target is the model string the caller passes; a sync ``Router.completion`` picks its
deployment inside LiteLLM, out of reach). :func:`acompletion` does the same for async
calls and, unlike the callback alone, re-raises unmapped overflow errors as
``ContextWindowExceededError``. :func:`HygieneRouter` does that inside a Router, where
``context_window_fallbacks`` decide on the error's type.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import threading
from collections.abc import Awaitable, Callable
from typing import Any, cast

import litellm
from litellm import ModelResponse
from litellm.exceptions import ContextWindowExceededError
from litellm.router import Router

from .._resolve import target_of
from ._answer import annotate, annotate_sync
from ._callback import HygieneCallback
from ._overflow_errors import retyped
from ._prepare import prepare, prepare_sync
from ._report import CallReport

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
    prepared = prepare_sync(callback.engine, call, report)
    if prepared is not None and prepared.changed:
        call = prepared.apply(call)
    try:
        response = litellm.completion(**call)
    except Exception as err:
        _raise_upgraded(callback, err, call)
        raise
    if isinstance(response, ModelResponse):
        annotate_sync(callback.engine, call, response, report)
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
    prepared = await prepare(callback.engine, call, report)
    if prepared is not None and prepared.changed:
        call = prepared.apply(call)
    try:
        response = await litellm.acompletion(**call)
    except Exception as err:
        _raise_upgraded(callback, err, call)
        raise
    if isinstance(response, ModelResponse):
        await annotate(callback.engine, call, response, report)
    return response


def _raise_upgraded(callback: HygieneCallback, err: Exception, call: dict[str, Any]) -> None:
    if not callback.options.upgrade_overflow_errors:
        return
    corrected = retyped(err, target_of(call))
    if corrected is not None:
        upgraded = isinstance(corrected, ContextWindowExceededError)
        callback.stats["overflow_upgraded" if upgraded else "overflow_downgraded"] += 1
        raise corrected from err


def HygieneRouter(*args: Any, **kwargs: Any) -> Router:  # a class's name: it builds one
    """A ``litellm.Router`` whose context-window fallbacks also see unmapped overflows.

    Takes ``litellm.Router``'s arguments and returns a ``litellm.Router``. The Router picks
    ``context_window_fallbacks`` only for ``ContextWindowExceededError``; this one sees a
    deployment's error re-typed by what it says before it decides on fallbacks: an unmapped
    token overflow becomes ``ContextWindowExceededError`` (so the ``context_window_fallbacks``
    fire), a look-alike LiteLLM mapped to it (a tool id over its length limit) becomes
    ``BadRequestError`` (so they do not). Everything else is the Router's own behaviour.
    Request hygiene itself comes from :class:`HygieneCallback` in ``litellm.callbacks``,
    which covers every fallback hop.

    LiteLLM 1.110 refuses subclasses of its Router, so none is made on any release: where
    the Router is a facade over a core (1.110), the core is given a host whose async
    endpoints re-type what they raise (``Router.from_config(config, host)``, the seam every
    deployment attempt goes through); before (1.106 to 1.109), the router's own fallback step,
    ``async_function_with_fallbacks_common_utils``, re-types the error it is handed.
    """
    from_config = getattr(Router, "from_config", None)
    if from_config is None:
        router = Router(*args, **kwargs)
        _retype_at_the_fallback_step(router)
        return router
    # Router.__init__'s own steps, with the host in place of the default one.
    arguments = importlib.import_module("litellm.router").router_arguments(*args, **kwargs)
    config = importlib.import_module("litellm.router_config").build_router_config(arguments)
    return cast(Router, from_config(config, _host()))


def _retyped_or_same(err: Exception) -> Exception:
    corrected = retyped(err, None)
    if corrected is None:
        return err
    corrected.__cause__ = err
    return corrected


def _retype_at_the_fallback_step(router: Router) -> None:
    """LiteLLM 1.106 to 1.109: wrap the step that decides on fallbacks, for this router only."""
    decide = router.async_function_with_fallbacks_common_utils

    async def retyping(e: Exception, *args: Any, **kwargs: Any) -> Any:
        return await decide(_retyped_or_same(e), *args, **kwargs)

    router.async_function_with_fallbacks_common_utils = retyping  # type: ignore[method-assign]


@functools.cache
def _host() -> Any:
    """LiteLLM 1.110: the router core's host, with every async endpoint re-typing its errors.

    The core calls each deployment attempt through ``host.invoke(op)(**kwargs)``
    (``router_rust/core.py``), and decides on retries and fallbacks from the class of what
    that raises.
    """
    from litellm.router_python_host import PythonHost

    class RetypingHost(PythonHost):  # type: ignore[misc]
        __slots__ = ()

        def invoke(self, op: str) -> Any:
            endpoint = super().invoke(op)
            if not inspect.iscoroutinefunction(endpoint):
                return endpoint
            return _retyping(endpoint)

    return RetypingHost()


@functools.lru_cache(maxsize=64)
def _retyping(endpoint: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    @functools.wraps(endpoint)  # the core reads the handler's __name__ and __module__
    async def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return await endpoint(*args, **kwargs)
        except Exception as err:
            corrected = retyped(err, None)
            if corrected is None:
                raise
            raise corrected from err

    return call
