"""Build hook: the wheel carries the hot path compiled with mypyc.

The rules and the wire reader run on every request a proxy serves; compiled, the same
Python source runs about twice as fast (``benchmarks/bench_hygiene.py`` prints both).
Nothing is written twice: mypyc compiles the modules as they are, and the ``.py`` files
ship beside the extensions (Python imports the extension when there is one).

- A wheel is compiled; an editable install is not (edits take effect at once), nor is
  a wheel built with ``LITELLM_HYGIENE_PURE=1`` in the environment.
- Where compiling fails (no C compiler, a type error), the wheel is built pure and the
  build says why (pip shows it with ``-v``); ``LITELLM_HYGIENE_COMPILE=require`` makes
  that failure fail the build.
- The compiled code is the same wherever it is built: LiteLLM, Pillow, Redis and click
  read as ``Any`` to the compiler whether or not the build environment has them.
- ``python hatch_build.py DIR`` compiles into ``DIR`` and prints what it built.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

ROOT = Path(__file__).resolve().parent
PACKAGE = "litellm_hygiene"

COMPILED: tuple[str, ...] = (
    "_anthropic/_chat.py",
    "_anthropic/_decode.py",
    "_anthropic/_encode.py",
    "_anthropic/_native.py",
    "_anthropic/_quick.py",
    "_openai/_decode.py",
    "_openai/_edits.py",
    "_openai/_encode.py",
    "_openai/_evidence.py",
    "_openai/_facts.py",
    "_json.py",
    "_openai/_parts.py",
    "_openai/_positions.py",
    "_openai/_response.py",
    "_openai/_tools.py",
    "_rules/*.py",
    "_view/*.py",
    "_wire/*.py",
    "_build.py",
    "_executor.py",
    "_recall.py",
    "_integration/_store/_fingerprints.py",
    "_responses/_chat.py",
    "_responses/_decode.py",
    "_responses/_encode.py",
    "_responses/_parts.py",
    "_responses/_quick.py",
    "_signatures.py",
)
"""The modules compiled (globs relative to the package): the wire reader and editor,
every rule and the interface they read through (``_view``, ``_wire``), the readers and
writers of the coding agents' request shapes (``_anthropic``, ``_responses``), and the
provenance lookup's fingerprints (the wires' tables of functions, ``_wire.py``, gain
nothing compiled). None defines a pydantic model (mypyc compiles a class
into a native one, which pydantic cannot build on); an interpreted class cannot subclass
a compiled one, so every rule module is compiled with the rules' base."""


def sources(root: Path = ROOT) -> list[str]:
    """The files of :data:`COMPILED`, relative to ``root``."""
    found: set[str] = set()
    for pattern in COMPILED:
        matched = {p.relative_to(root).as_posix() for p in (root / PACKAGE).glob(pattern)}
        if not matched:  # a module renamed away must not silently stop being compiled
            raise FileNotFoundError(f"{PACKAGE}/{pattern} matches no module")
        found |= matched
    return sorted(found)


COMPILE_REQUIRES = ["mypy==2.4.1", "setuptools>=70", "pydantic>=2.7,<3"]
"""What compiling needs in the build environment (pydantic for its mypy plugin)."""

PURE_ENV = "LITELLM_HYGIENE_PURE"
REQUIRE_ENV = "LITELLM_HYGIENE_COMPILE"

# Type-checked for compiling only: errors in modules that are not compiled are not
# reported (`mypy --strict` on the project, the tests' gate, is what holds the types),
# and the runtime dependencies other than pydantic read as Any wherever the wheel is
# built, so the tests' build (in the dev environment) compiles what pip's isolated
# build compiles.
_MYPY_CONFIG = """\
[mypy]
ignore_missing_imports = True
follow_imports = silent
warn_unused_configs = False
plugins = pydantic.mypy

[mypy-litellm.*,PIL.*,redis.*,click.*,mcp.*]
follow_imports = skip
"""


def pure(environ: Mapping[str, str]) -> bool:
    """Whether the environment asks for a pure build (``LITELLM_HYGIENE_PURE=1``)."""
    return environ.get(PURE_ENV, "") not in ("", "0")


def wanted(target: str, version: str, environ: Mapping[str, str]) -> bool:
    """Whether a build of ``target`` (``version``: hatchling's) is compiled."""
    return target == "wheel" and version != "editable" and not pure(environ)


def compile_to(directory: Path, *, root: Path = ROOT) -> dict[str, Path]:
    """Compile :data:`COMPILED` of ``root``'s package; each extension by its wheel path.

    Raises:
        Exception: Whatever the C compiler raises; nothing is written outside
            ``directory``.
        SystemExit: mypyc's way of failing (a type error, a bad option).
    """
    from mypyc.build import mypycify
    from setuptools import Distribution
    from setuptools.command.build_ext import build_ext

    work = Path(tempfile.mkdtemp(prefix="hygiene-mypyc-", dir=directory.resolve()))
    config = work / "mypy.ini"
    config.write_text(_MYPY_CONFIG)
    files = sources(root)
    here = os.getcwd()
    os.chdir(root)  # mypy names modules by their paths from here
    try:
        extensions = mypycify(
            [f"--config-file={config}", *files],
            opt_level="3",
            group_name=PACKAGE,
            target_dir=str(work / "c"),
        )
        dist = Distribution({"name": "litellm-hygiene", "ext_modules": extensions})
        command = build_ext(dist)
        command.build_lib = str(work / "lib")
        command.build_temp = str(work / "temp")
        command.ensure_finalized()
        command.run()
    finally:
        os.chdir(here)
    lib = work / "lib"
    built = {path.relative_to(lib).as_posix(): path for path in lib.rglob("*") if path.is_file()}
    if len(built) != len(files) + 1:  # one extension per module, and the shared runtime
        raise RuntimeError(f"expected {len(files) + 1} extensions, built {sorted(built)}")
    return built


class CompileHook(BuildHookInterface):  # type: ignore[type-arg]
    """Hatchling's hook: compile into a wheel, or say why the wheel is pure."""

    PLUGIN_NAME = "custom"

    def dependencies(self) -> list[str]:
        """The compiler, unless the build is asked to be pure.

        Hatchling asks before it knows whether the build is editable, so an editable
        install brings the compiler into its build environment and leaves it unused.
        """
        return [] if pure(os.environ) else list(COMPILE_REQUIRES)

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        """Add the compiled extensions to the wheel being built."""
        if not wanted(self.target_name, version, os.environ):
            return
        self._work = Path(tempfile.mkdtemp(prefix="hygiene-build-"))
        try:
            built = compile_to(self._work, root=Path(self.root))
        except (Exception, SystemExit) as err:  # mypyc fails by exiting
            if os.environ.get(REQUIRE_ENV) == "require":
                shutil.rmtree(self._work, ignore_errors=True)  # finalize will not run
                raise
            self.app.display_warning(
                f"litellm-hygiene: building a pure-Python wheel; compiling failed: {err!r} "
                f"(set {REQUIRE_ENV}=require to fail instead)"
            )
            return
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        for target, path in built.items():
            build_data["force_include"][str(path)] = target

    def finalize(self, version: str, build_data: dict[str, Any], artifact: str) -> None:
        """Remove the compiler's scratch files."""
        work = getattr(self, "_work", None)
        if work is not None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":  # python hatch_build.py DIR: compile into DIR, print the paths
    for target, path in compile_to(Path(sys.argv[1])).items():
        print(target, path)
