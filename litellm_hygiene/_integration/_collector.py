"""CPython's cyclic garbage collector, paused while hygiene works on a request.

Rewriting a request makes thousands of small objects (facts, slots, copied messages,
change records) that all die by reference counting when the work is done. A
collection that runs in the middle finds them alive and moves them to an older
generation; enough of those trigger a full collection, which with LiteLLM loaded scans
about 400,000 objects (about 0.2 s on the benchmark machine) and stops every request on
the worker. Paused, the collector never sees them: it runs at the next allocation after
hygiene is done, on what is still alive then.

The pause is process-wide (``gc.disable``), so it covers only the synchronous parts of a
request's work (reading it, and rewriting it), never an ``await``: a few milliseconds
for a long agent transcript. A heavy request worked on in a worker thread pauses it for
as long as that takes (70 to 160 ms for 10,000 agent messages here), while the event
loop serves other requests; their garbage waits that long.

A pause never outlasts the work of the request that began it, so under any load the
collector runs between requests: work that starts while the collector is already paused
(by another request, or by the application) leaves it as it is, and the request that
paused it enables it again when its own work is done, even if other work is still
running (that work then runs with the collector on). An application that disables the
collector while a request has it paused finds it enabled again. The ``pause_gc`` option
turns all of this off.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import TypeVar

__all__ = ["collector_paused"]

_T = TypeVar("_T")


def collector_paused(func: Callable[..., _T], *args: object) -> _T:
    """``func(*args)`` with the cyclic garbage collector paused (see the module docstring).

    A collector already paused is left as it is.
    """
    if not gc.isenabled():
        return func(*args)
    gc.disable()
    try:
        return func(*args)
    finally:
        gc.enable()
