"""The compiled wheel: what hatch_build.py compiles, and the rules' tests run on it.

The suite runs on the pure source (an editable install). The wheel users install runs
the same source compiled by mypyc, whose runtime checks its annotations where Python
does not; so the wheel is built here with the hook pip runs (in this environment, which
holds what the isolated build gets: see the tests of the compiler's requirements), and
the tests of the rules, the wire reader and the pipeline run again on its extensions.
"""

from __future__ import annotations

import ast
import importlib
import importlib.metadata
import importlib.util
import inspect
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path
from types import ModuleType

import pydantic
import pytest
from packaging.requirements import Requirement

pytestmark = pytest.mark.slow  # builds the wheel and runs the rules tests on it: CI's slow step

ROOT = Path(__file__).resolve().parents[2]

# The tests of what is compiled: the rules one by one and as properties, the wire
# reader and editor, the validator, the hot path against the full pipeline, images,
# the bodies LiteLLM sends, the fuzz campaign, the callback (fingerprints), and the
# coding agents' request shapes and routes.
ON_THE_WHEEL = (
    "tests/rules/test_ids.py",
    "tests/rules/test_turns.py",
    "tests/rules/test_content.py",
    "tests/rules/test_rules_properties.py",
    "tests/rules/test_fast_checks.py",
    "tests/rules/test_passes.py",
    "tests/rules/test_validate.py",
    "tests/shapes/test_second_wire.py",
    "tests/rules/test_pass_images.py",
    "tests/shapes/test_openai_convert.py",
    "tests/rules/test_fuzz.py",
    "tests/integration/test_callback.py",
    "tests/shapes/test_anthropic_shape.py",
    "tests/rules/test_anthropic_rules_properties.py",
    "tests/integration/test_messages_route.py",
    "tests/shapes/test_responses_shape.py",
    "tests/integration/test_responses_route.py",
    "tests/integration/test_public_api.py",
    "tests/integration/test_recall.py",
)


def _hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("hatch_build", ROOT / "hatch_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hook = _hook()


@pytest.mark.parametrize(
    ("target", "version", "environ", "compiled"),
    [
        ("wheel", "standard", {}, True),
        ("wheel", "editable", {}, False),
        ("wheel", "standard", {"LITELLM_HYGIENE_PURE": "1"}, False),
        ("wheel", "standard", {"LITELLM_HYGIENE_PURE": "0"}, True),
        ("wheel", "standard", {"LITELLM_HYGIENE_PURE": ""}, True),
        ("sdist", "standard", {}, False),
    ],
)
def test_which_builds_are_compiled(
    target: str, version: str, environ: dict[str, str], compiled: bool
) -> None:
    assert hook.wanted(target, version, environ) is compiled


def test_every_rule_module_is_compiled_and_none_defines_a_pydantic_model() -> None:
    files = hook.sources()
    rules = sorted(
        p.relative_to(ROOT).as_posix() for p in (ROOT / "litellm_hygiene/_rules").glob("*.py")
    )
    assert set(rules) <= set(files)  # an interpreted rule cannot subclass a compiled base
    for name in files:
        module = importlib.import_module(name.removesuffix(".py").replace("/", "."))
        for _, value in inspect.getmembers(module, inspect.isclass):
            if value.__module__ != module.__name__:
                continue  # imported, not defined here
            assert not issubclass(value, pydantic.BaseModel), (name, value)
            assert not pydantic.dataclasses.is_pydantic_dataclass(value), (name, value)


def _slow_when_compiled(
    tree: ast.AST, path: Path | None = None, compiled: frozenset[Path] = frozenset()
) -> list[str]:
    """Constructs mypyc compiles to a slow generic path, found in one module.

    ``isinstance(x, A | B)`` builds the union at every call; an f-string with a
    conversion or a format spec formats every one of its fields through ``str.format``.
    A ``__repr__`` may use them (it is not on a request's path). ``path``: the module's
    file, to follow its relative imports; ``compiled``: the files compiled with it (see
    :func:`_constants_read_from_the_module_dict`).
    """
    found: list[str] = []
    reprs = {
        id(node)
        for function in ast.walk(tree)
        if isinstance(function, ast.FunctionDef) and function.name == "__repr__"
        for node in ast.walk(function)
    }
    for node in ast.walk(tree):
        if id(node) in reprs:
            continue
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "isinstance"
            and len(node.args) == 2
            and isinstance(node.args[1], ast.BinOp)
            and isinstance(node.args[1].op, ast.BitOr)
        ):
            found.append(f"line {node.lineno}: isinstance against a union")
        if isinstance(node, ast.FormattedValue) and (
            node.conversion != -1 or node.format_spec is not None
        ):
            found.append(f"line {node.lineno}: an f-string field with a conversion or spec")
    return found + _constants_read_from_the_module_dict(tree, path, compiled)


def _module_constants(tree: ast.AST, compiled: bool = True) -> set[str]:
    """The names a module assigns at its top level that a compiled function reads from a
    module's dict: those not ``Final``, and, where the module is not ``compiled``, its
    ``Final`` ones but literals (mypyc puts a ``Final`` in a C static only where the
    module defining it is compiled, and inlines a literal one anywhere)."""
    body = tree.body if isinstance(tree, ast.Module) else []
    names: set[str] = set()
    for node in body:
        if isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            marks = {n.id for n in ast.walk(node.annotation) if isinstance(n, ast.Name)}
            if node.value is None or "TypeAlias" in marks:
                continue
            if "Final" not in marks or not (compiled or _literal(node.value)):
                names.add(node.target.id)
    names.discard("__all__")
    return names


def _literal(value: ast.expr) -> bool:
    """A value mypy records as a ``Final``'s literal (a number, a string, a bool)."""
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub | ast.UAdd):
        value = value.operand
    return isinstance(value, ast.Constant) and type(value.value) in (int, float, bool, str)


def _imported_constants(
    tree: ast.AST, path: Path, compiled: frozenset[Path], depth: int = 3
) -> set[str]:
    """The names ``tree`` (the module at ``path``) imports that are another module's
    constants read from a dict (:func:`_module_constants`; ``compiled``: the files
    compiled), followed through ``depth`` relative imports (a package's ``__init__``
    that hands a name on)."""
    body = tree.body if isinstance(tree, ast.Module) else []
    found: set[str] = set()
    for node in body:
        if not isinstance(node, ast.ImportFrom) or node.level == 0 or depth == 0:
            continue
        base = path.parent
        for _ in range(node.level - 1):
            base = base.parent
        parts = node.module.split(".") if node.module else []
        origin = base.joinpath(*parts)
        source = origin / "__init__.py" if origin.is_dir() else origin.with_suffix(".py")
        if not source.is_file():
            continue  # a module imported whole, not names from one
        other = ast.parse(source.read_text())
        constants = _module_constants(other, source in compiled)
        constants |= _imported_constants(other, source, compiled, depth - 1)
        found |= {alias.asname or alias.name for alias in node.names if alias.name in constants}
    return found


def _constants_read_from_the_module_dict(
    tree: ast.AST, path: Path | None = None, compiled: frozenset[Path] = frozenset()
) -> list[str]:
    """Module-level names a function reads that are not ``Final``.

    Compiled, a function reads such a name from the module's dict at every read (a
    ``Final`` one is a C static), its own or one imported from another module's
    (``path``: the module's file, to follow its relative imports; ``compiled``: the
    files compiled with it, whose ``Final`` names are C statics too). Annotations (and
    ``cast``'s type) are not read.
    """
    names = _module_constants(tree)
    if path is not None:
        names |= _imported_constants(tree, path, compiled)
    unread: set[int] = set()
    for each in ast.walk(tree):
        types: list[ast.expr] = []
        if isinstance(each, ast.FunctionDef | ast.AsyncFunctionDef):
            arguments = each.args
            every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
            every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
            types = [a.annotation for a in every if a.annotation is not None]
            types += [each.returns] if each.returns is not None else []
        elif isinstance(each, ast.AnnAssign):
            types = [each.annotation]
        elif isinstance(each, ast.Call) and isinstance(each.func, ast.Name) and each.args:
            types = [each.args[0]] if each.func.id == "cast" else []
        unread |= {id(n) for t in types for n in ast.walk(t)}
    return [
        f"line {name.lineno}: {name.id} read from the module's dict (not Final here, nor a"
        " compiled module's Final)"
        for function in ast.walk(tree)
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        for name in ast.walk(function)
        if isinstance(name, ast.Name)
        and isinstance(name.ctx, ast.Load)
        and name.id in names
        and id(name) not in unread
    ]


def test_the_compiled_modules_avoid_what_mypyc_leaves_slow() -> None:
    compiled = frozenset(ROOT / name for name in hook.sources())
    slow = {
        name: found
        for name in hook.sources()
        if (
            found := _slow_when_compiled(
                ast.parse((ROOT / name).read_text()), ROOT / name, compiled
            )
        )
    }
    # image_payload words sizes with format specs, once per oversized image.
    assert slow.keys() <= {"litellm_hygiene/_rules/image_payload.py"}, slow


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("isinstance(x, int | str)", 1),
        ("isinstance(x, (int, str))", 0),
        ("isinstance(x, int) or isinstance(x, str)", 0),
        ("f'{x!r}'", 1),
        ("f'{x:.1f}'", 1),
        ("f'{x} {y[:3]}'", 0),
        ("class A:\n    def __repr__(self):\n        return f'{self.x!r}'", 0),
        ("_KEY = 'k'\ndef f(d):\n    return d[_KEY]", 1),
        ("_KEY: str = 'k'\ndef f(d):\n    return d[_KEY]", 1),
        ("_KEY: Final = 'k'\ndef f(d):\n    return d[_KEY]", 0),
        ("_KEY: Final[str] = 'k'\ndef f(d):\n    return d[_KEY]", 0),
        ("Alias = dict[str, int]\ndef f(d: Alias) -> Alias:\n    x: Alias = cast(Alias, d)", 0),
        ("_KEY = 'k'\nprint(_KEY)", 0),
    ],
)
def test_the_slow_constructs_are_found(source: str, found: int) -> None:
    assert len(_slow_when_compiled(ast.parse(source))) == found


@pytest.mark.parametrize(
    ("imports", "found"),
    [
        ("from .a import _KEY", 1),
        ("from .a import _KEY as _OTHER", 1),
        ("from .a import _FINAL", 0),  # a literal: inlined
        ("from .a import _TABLE", 1),  # not a literal, in a module not compiled
        ("from .compiled import _TABLE", 0),  # ... in a compiled module: a C static
        ("from .a import helper", 0),
        ("from . import _KEY", 1),  # handed on by the package
        ("from .sub.b import _DEEP", 1),
        ("from ..outside import _KEY", 0),  # no such module: not followed
    ],
)
def test_the_constants_imported_from_other_modules_are_found(
    tmp_path: Path, imports: str, found: int
) -> None:
    package = tmp_path / "package"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("from .a import _KEY\n")
    constants = "from typing import Final\n_KEY = 'k'\n_FINAL: Final = -1\n"
    (package / "a.py").write_text(constants + "_TABLE: Final = {}\ndef helper(): ...\n")
    (package / "compiled.py").write_text("from typing import Final\n_TABLE: Final = {}\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "b.py").write_text("_DEEP: str = 'd'\n")
    name = imports.split(" as ")[-1].split()[-1]
    module = package / "user.py"
    source = f"{imports}\ndef f(d):\n    return d[{name}]\n"
    compiled = frozenset({module, package / "compiled.py"})
    assert len(_slow_when_compiled(ast.parse(source), module, compiled)) == found


def test_a_listed_module_that_is_gone_fails_the_build(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hook, "COMPILED", (*hook.COMPILED, "_openai/_renamed_away.py"))
    with pytest.raises(FileNotFoundError, match="_renamed_away"):
        hook.sources()


def _compile_hook() -> object:
    return hook.CompileHook(str(ROOT), {}, None, None, str(ROOT / "dist"), "wheel")


def test_the_build_environment_gets_the_compiler_unless_asked_for_pure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("LITELLM_HYGIENE_PURE", raising=False)
    assert _compile_hook().dependencies() == hook.COMPILE_REQUIRES  # type: ignore[attr-defined]
    monkeypatch.setenv("LITELLM_HYGIENE_PURE", "1")
    assert _compile_hook().dependencies() == []  # type: ignore[attr-defined]


def test_the_tests_build_with_what_the_build_environment_gets() -> None:
    # The wheel below is built in this environment (no build isolation): it must hold
    # what pip puts in the isolated one, or the tests compile with another compiler.
    for line in hook.COMPILE_REQUIRES:
        requirement = Requirement(line)
        installed = importlib.metadata.version(requirement.name)
        assert requirement.specifier.contains(installed, prereleases=True), (line, installed)


def test_the_gate_checks_with_the_compiler_the_wheel_is_built_with() -> None:
    pinned = (ROOT / "pyproject.toml").read_text()
    mypy = next(r for r in hook.COMPILE_REQUIRES if r.startswith("mypy=="))
    assert f'"{mypy}"' in pinned  # the gate's mypy is the compiler's


@pytest.fixture(scope="module")
def wheel_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built as pip builds it, unpacked beside a copy of the tests."""
    if shutil.which("gcc") is None and shutil.which("cc") is None:
        pytest.skip("no C compiler: the wheel would be built pure")
    out = tmp_path_factory.mktemp("wheel")
    env = {**os.environ, "LITELLM_HYGIENE_COMPILE": "require"}
    env.pop("LITELLM_HYGIENE_PURE", None)
    pip = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
    subprocess.run([*pip, "-w", str(out), str(ROOT)], check=True, env=env, cwd=ROOT, timeout=900)
    (wheel,) = out.glob("litellm_hygiene-*.whl")
    assert not wheel.name.endswith("-none-any.whl"), wheel.name  # a platform wheel
    tree = out / "tree"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(tree)
    shutil.copytree(ROOT / "tests", tree / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tree / "pyproject.toml")
    return tree


def _run(tree: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": str(tree)}
    return subprocess.run(
        [sys.executable, *args],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )


def test_the_wheel_imports_its_extensions_without_the_compiler(wheel_tree: Path) -> None:
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    modules = [name.removesuffix(".py").replace("/", ".") for name in hook.sources()]
    modules = [m.removesuffix(".__init__") for m in modules]
    probe = (
        "import sys\n"
        "sys.modules['librt'] = sys.modules['mypy'] = sys.modules['mypyc'] = None\n"
        "import importlib\n"
        f"for name in {modules!r}:\n"
        "    print(importlib.import_module(name).__file__)\n"
    )
    done = _run(wheel_tree, "-c", probe)
    assert done.returncode == 0, done.stderr
    files = done.stdout.split()
    assert len(files) == len(modules)
    assert all(f.startswith(str(wheel_tree)) and f.endswith(suffix) for f in files), files


def test_the_records_built_per_problem_are_built_without_a_python_frame(
    wheel_tree: Path,
) -> None:
    # A dataclass's generated __init__ is a Python function even in a compiled class:
    # the records a request builds by the thousand write theirs out.
    probe = (
        "import types\n"
        "from litellm_hygiene._rules._findings import Change, Finding, Problem\n"
        "print([isinstance(c.__init__, types.FunctionType) for c in (Change, Finding, Problem)])\n"
    )
    done = _run(wheel_tree, "-c", probe)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[False,", "False,", "False]"]


def test_the_rules_tests_pass_on_the_wheel(wheel_tree: Path) -> None:
    done = _run(wheel_tree, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *ON_THE_WHEEL)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout.splitlines()[-1]
