"""The integration's core run by itself, as the engine runs it (no engine around it).

``_request.preparing`` and ``preparing_shaped`` are the steps of a call's preparation;
the engine drives them (``_steps.run`` in an event loop, ``run_sync`` here). These run
them the same way for the tests that look at the core alone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from litellm_hygiene._integration._options import HygieneOptions
from litellm_hygiene._integration._prepared import Prepared
from litellm_hygiene._integration._request import ShapedCall, preparing, preparing_shaped
from litellm_hygiene._integration._steps import run, run_sync
from litellm_hygiene._integration._store import ProvenanceStore
from litellm_hygiene._recall import Recall


async def prepare_request(
    kwargs: Mapping[str, Any], options: HygieneOptions, store: ProvenanceStore | None
) -> Prepared:
    """The core on a chat call, in an event loop."""
    return await run(preparing(kwargs, options, store), options, store)


def prepare_request_sync(
    kwargs: Mapping[str, Any], options: HygieneOptions, store: ProvenanceStore | None
) -> Prepared:
    """The core on a chat call, here."""
    return run_sync(preparing(kwargs, options, store), options, store)


async def prepare_shaped(
    kwargs: Mapping[str, Any],
    options: HygieneOptions,
    store: ProvenanceStore | None,
    view_of: Callable[[Mapping[str, Any], Recall | None], ShapedCall],
) -> tuple[dict[str, Any], Prepared]:
    """The core on a call of another shape, read by ``view_of``, in an event loop."""
    return await run(preparing_shaped(kwargs, options, store, view_of), options, store)
