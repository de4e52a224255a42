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
loop serves other requests; their garbage waits that long. Overlapping pauses are
counted: the collector is enabled again when the last one ends, and only if it was
enabled when the first began (an application that disables it meanwhile has it enabled
again). The ``pause_gc`` option turns this off.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable
from typing import TypeVar

__all__ = ["collector_paused"]

_T = TypeVar("_T")

_lock = threading.Lock()
_depth = 0
_paused_here = False


def collector_paused(func: Callable[..., _T], *args: object) -> _T:
    """``func(*args)`` with the cyclic garbage collector paused (see the module docstring).

    A collector already disabled (by the application) stays disabled.
    """
    global _depth, _paused_here
    with _lock:
        if _depth == 0:
            _paused_here = gc.isenabled()
            if _paused_here:
                gc.disable()
        _depth += 1
    try:
        return func(*args)
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _paused_here:
                _paused_here = False
                gc.enable()
