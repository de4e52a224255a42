"""The proxy's handler: ``litellm_settings: callbacks: litellm_hygiene.proxy_handler``.

LiteLLM's proxy imports ``litellm_hygiene`` and reads the attribute ``proxy_handler``,
which is built on first access from the proxy config's ``callback_settings:
litellm_hygiene:`` section (LiteLLM stores that section on ``litellm.callback_settings``
before it loads callbacks). A bad setting stops the proxy at startup with a
:class:`~litellm_hygiene.ConfigurationError` naming the key.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from typing import Any

import litellm

from ._callback import HygieneCallback
from ._options import HygieneOptions

__all__ = ["SETTINGS_KEY", "proxy_handler", "settings_from_litellm"]

SETTINGS_KEY = "litellm_hygiene"
"""The section of the proxy config's ``callback_settings`` that configures hygiene."""

_handler: HygieneCallback | None = None
_lock = threading.Lock()


def settings_from_litellm() -> Mapping[str, Any] | None:
    """The ``callback_settings: litellm_hygiene:`` section the proxy loaded, if any."""
    settings = getattr(litellm, "callback_settings", None)
    if not isinstance(settings, Mapping):
        return None
    section: Mapping[str, Any] | None = settings.get(SETTINGS_KEY)
    return section


def proxy_handler() -> HygieneCallback:
    """The process-wide handler the proxy registers, built once from its config.

    Raises:
        ConfigurationError: The settings are invalid (an unknown key, a bad value, Redis
            chosen with no host or URL anywhere): the proxy stops at startup.
    """
    global _handler
    with _lock:
        if _handler is None:
            _handler = HygieneCallback(HygieneOptions.from_settings(settings_from_litellm()))
            _log_with_litellm()
        return _handler


def _log_with_litellm() -> None:
    """Send hygiene's log records to the proxy's own log, where operators look.

    The library logger has only a ``NullHandler``; inside the proxy it borrows the
    handlers of LiteLLM's proxy logger (and so its level and secret filtering), unless
    the operator configured logging already (a handler on ``litellm_hygiene`` or on
    the root logger, which hygiene's records reach by propagation).
    """
    from litellm._logging import verbose_proxy_logger

    ours = logging.getLogger("litellm_hygiene")
    if logging.getLogger().handlers or any(
        not isinstance(h, logging.NullHandler) for h in ours.handlers
    ):
        return
    for handler in verbose_proxy_logger.handlers:
        ours.addHandler(handler)
