"""What a benchmark ran on: the interpreter, the machine, and which build of hygiene."""

from __future__ import annotations

import os
import platform
import sysconfig

import litellm_hygiene._executor as executor

__all__ = ["build", "describe"]


def build() -> str:
    """``compiled`` when the rules run as mypyc extensions (a wheel), else ``pure``."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    return "compiled" if (executor.__file__ or "").endswith(suffix) else "pure"


def describe() -> str:
    """One line: ``CPython 3.11.7, x86_64, 2 cores, hygiene compiled``."""
    return (
        f"{platform.python_implementation()} {platform.python_version()}, "
        f"{platform.machine()}, {os.cpu_count()} cores, hygiene {build()}"
    )
