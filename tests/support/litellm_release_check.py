"""Try any LiteLLM release in a scratch virtualenv and print what differs.

This is a test-support module, not a test file: a command, run with any Python 3.10+ from
the repository's root (it uses the standard library only)::

    python3 -m tests.support.litellm_release_check 1.110.2      # force that release
    python3 -m tests.support.litellm_release_check newest       # what `pip install` resolves

It makes (or reuses) ``.venv-litellm-VERSION``, installs the project with its ``test``
extra, forces ``litellm[mcp]==VERSION`` over it whatever ``pyproject.toml``'s range says,
adds the release's proxy extra but the packages the registry may lack
(``.ci/litellm_proxy_requirements.py``), and prints, for that release:

- the public names that do not import (``litellm_hygiene.__all__``);
- whether its release line's route decisions were looked up (``_integration/_routes.py``),
  and each pinned fact of ``tests/support/litellm_version.py``: holds, does not, or not looked up;
- the outcome of :data:`NEWEST_TESTS` (the wire-level tests, the route cases, the facts'
  own tests, the public API), and which of the failing ones pass on the pinned release
  (the dev virtualenv ``.venv``, when present): what this release changed.

It exits non-zero when a test fails or a name does not import. Adopting a new release line
is then: run this, look each listed difference up in the release's source, write it down
(a ``_Change`` in ``_routes.py``, a ``Fact``/``Change`` in ``tests/support/litellm_version.py``),
widen the range in ``pyproject.toml``, run this again. ``.ci/run`` runs it with ``newest``.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

NEWEST_TESTS = (
    "tests/e2e/test_cassettes*.py",
    "tests/shapes/test_wire_keys.py",
    "tests/integration/test_litellm_versions.py",
    "tests/e2e/test_demo.py",
    "tests/rules/test_ids.py",
    "tests/rules/test_turns.py",
    "tests/rules/test_content.py",
    "tests/integration/test_callback.py",
    "tests/overflow/test_overflow_litellm.py",
    "tests/e2e/test_proxy*.py",
    "tests/integration/test_messages_route.py",
    "tests/integration/test_responses_route.py",
    "tests/integration/test_routes.py",
    "tests/support/test_standin*.py",
    "tests/rules/test_thinking_tool_loop*.py",
    "tests/integration/test_public_api.py",
    "tests/e2e/test_real_clients.py",
)
"""The tests whose outcome depends on what LiteLLM does: the bodies it sends (cassettes,
wire keys, the demo, the pinned facts), its converters, hooks and routes (the rules'
cases on its converters, callback, route decisions), its proxy, the stand-in that plays
the providers, and the public names, and the real Claude Code and Codex CLIs through its
proxy. The rest of the suite tests hygiene's own code."""

_PROBE = r"""
import json, importlib
out = {"imports": {}, "routes": None, "facts": []}
import litellm_hygiene
for name in litellm_hygiene.__all__:
    try:
        getattr(litellm_hygiene, name)
    except Exception as err:
        out["imports"][name] = f"{type(err).__name__}: {err}"
out["names"] = len(litellm_hygiene.__all__)
from litellm_hygiene._integration import _routes
release = _routes._installed_release()
out["release"] = ".".join(map(str, release))
try:
    out["routes"] = {k: v for k, v in vars(_routes._rules(release)).items()}
except LookupError as err:
    out["routes"] = str(err)
from tests.support import litellm_version as pins
for fact in (*pins.CHANGES, *pins.FACTS):
    try:
        state = "holds" if fact.holds() else "does not"
    except pins.UnknownRelease:
        state = "NOT LOOKED UP"
    out["facts"].append([state, fact.what])
print(json.dumps(out))
"""

_OUTCOME = re.compile(r"^(FAILED|ERROR) (\S+)")
_COUNTS = re.compile(r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed|deselected)")


def _run(
    command: list[str],
    *,
    capture_output: bool = False,
    check: bool = False,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    print("+ " + " ".join(command), file=sys.stderr, flush=True)
    return subprocess.run(
        command, cwd=ROOT, text=True, check=check, capture_output=capture_output, env=env
    )


def _pip(python: Path, *args: str) -> None:
    done = _run([str(python), "-m", "pip", "install", "-q", *args], capture_output=True)
    if done.returncode != 0:
        sys.exit(f"pip install {' '.join(args)} failed:\n{done.stdout}{done.stderr}")


def _installed(python: Path) -> str:
    done = _run(
        [str(python), "-c", "import importlib.metadata as m; print(m.version('litellm'))"],
        capture_output=True,
    )
    return done.stdout.strip()


def prepare(version: str, venv: Path, fresh: bool) -> Path:
    """The scratch virtualenv's Python, with the project and LiteLLM ``version`` in it."""
    python = venv / "bin" / "python"
    if fresh or not python.exists() or (version != "newest" and _installed(python) != version):
        if venv.exists():
            subprocess.run(["rm", "-rf", str(venv)], check=True)
        _run([sys.executable, "-m", "venv", str(venv)], check=True)
        os.environ.setdefault("PIP_DISABLE_PIP_VERSION_CHECK", "1")
        _pip(python, "-e", ".[test]")
        if version != "newest":
            # Outside the range, pip warns that litellm-hygiene asks for another release
            # and installs this one: the point of the check.
            _pip(python, f"litellm[mcp]=={version}")
    resolved = _installed(python)
    proxy = ROOT / ".ci" / "litellm_proxy_requirements.py"
    required = _run([str(python), str(proxy), "required"], capture_output=True).stdout.split("\n")
    _pip(python, f"litellm=={resolved}", *[line for line in required if line])
    optional = _run([str(python), str(proxy), "optional"], capture_output=True).stdout.split("\n")
    for line in filter(None, optional):
        done = _run(
            [str(python), "-m", "pip", "install", "-q", f"litellm=={resolved}", line],
            capture_output=True,
        )
        if done.returncode != 0:
            print(f"(not on the registry, left out: {line})", file=sys.stderr)
    return python


def _tests() -> list[str]:
    return sorted({str(p.relative_to(ROOT)) for g in NEWEST_TESTS for p in ROOT.glob(g)})


def pytest_outcome(python: Path, targets: list[str]) -> tuple[str, list[str]]:
    """pytest's closing counts and the ids of what failed (``FAILED``/``ERROR``)."""
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = _run(
        # ``-m ""``: the slow ones too (the real CLIs), which the default run leaves out.
        [str(python), "-m", "pytest", "-q", "-rfE", "-p", "no:randomly", "-m", "", *targets],
        capture_output=True,
        env=env,
    )
    lines = done.stdout.splitlines()
    failed = [found.group(2) for line in lines if (found := _OUTCOME.match(line))]
    counts = next((line.strip("= ") for line in reversed(lines) if _COUNTS.search(line)), "")
    if done.returncode not in (0, 1):
        counts = f"pytest exited {done.returncode}: {counts or lines[-1:]}"
    return counts, failed


def report(python: Path, baseline: Path | None) -> int:
    """Print what differs on the release in ``python``'s virtualenv; 0 when nothing fails."""
    import json

    probe = _run([str(python), "-c", _PROBE], capture_output=True)
    if probe.returncode != 0:
        print(probe.stdout + probe.stderr)
        return 1
    found = json.loads(probe.stdout.strip().splitlines()[-1])
    pinned = _installed(baseline) if baseline is not None else None
    print(f"\nLiteLLM {found['release']} ({python.parent.parent.name})", end="")
    print(f"; pinned release {pinned}" if pinned else "")
    broken = found["imports"]
    print(f"public names: {found['names'] - len(broken)}/{found['names']} import")
    for name, error in sorted(broken.items()):
        print(f"  {name}: {error}")
    routes = found["routes"]
    if isinstance(routes, str):
        print(f"route decisions: {routes} (/v1/messages and /v1/responses go out unrepaired)")
    else:
        print("route decisions: looked up; " + ", ".join(f"{k}={v}" for k, v in routes.items()))
    print("pinned facts (tests/support/litellm_version.py):")
    for state, what in found["facts"]:
        print(f"  {state:13} {what[:110]}")
    counts, failed = pytest_outcome(python, _tests())
    print(f"tests ({len(_tests())} files): {counts}")
    if failed and baseline is not None:
        _, still = pytest_outcome(baseline, sorted({f.split("[")[0] for f in failed}))
        differ = [f for f in failed if f not in still]
        print(f"  failing here, passing on {pinned} (what this release changed): {len(differ)}")
        for test in differ:
            print(f"    {test}")
        for test in (f for f in failed if f in still):
            print(f"  failing on both: {test}")
    else:
        for test in failed:
            print(f"  failed: {test}")
    print(f"===== {counts} =====")  # pytest's closing line, as pytest writes it
    return 1 if failed or broken or "exited" in counts or not counts else 0


def main(argv: list[str] | None = None) -> int:
    """Parse the command line, prepare the virtualenv, print the report."""
    parser = argparse.ArgumentParser(prog="python3 -m tests.support.litellm_release_check")
    parser.add_argument("version", help="a LiteLLM release (1.110.2), or 'newest' in range")
    parser.add_argument("--venv", type=Path, help="default: .venv-litellm-VERSION")
    parser.add_argument("--fresh", action="store_true", help="make the virtualenv anew")
    parser.add_argument(
        "--baseline",
        type=Path,
        default=ROOT / ".venv" / "bin" / "python",
        help="the pinned release's Python (default .venv/bin/python; 'none' to skip)",
    )
    args = parser.parse_args(argv)
    venv = args.venv or ROOT / f".venv-litellm-{args.version}"
    python = prepare(args.version, venv if venv.is_absolute() else ROOT / venv, args.fresh)
    baseline = None if str(args.baseline) == "none" else args.baseline
    if baseline is not None and not baseline.exists():
        baseline = None
    return report(python, baseline)


if __name__ == "__main__":
    sys.exit(main())
