"""The rules are declared once, for every wire shape: what they may import.

A rule sees a conversation through the neutral model and the narrow interface of
``_view`` (a message's facts, LiteLLM's id plan for the target, and the ``Wire`` each
shape implements). It never imports a wire shape (``_openai``, ``_anthropic``,
``_responses``), LiteLLM's shared wire conventions (``_wire``), the integration with
LiteLLM, or LiteLLM itself. The interface itself imports no shape. Rules importing
each other are listed, and the list may only shrink.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "litellm_hygiene"
RULES = PACKAGE / "_rules"
VIEW = PACKAGE / "_view"
SHAPES = ("_openai", "_anthropic", "_responses")
FORBIDDEN = (*SHAPES, "_wire", "_integration", "_standin", "_demo", "_cli", "litellm")

RULE_TO_RULE: dict[str, frozenset[str]] = {}
"""Rule module -> the rule modules it imports: none. A rule that builds a turn out of
others (a merge) has the message rules ahead of it settle the turn without naming them
(``_rule.settled``)."""


def _imports(path: Path) -> set[str]:
    """The modules ``path`` imports: ``..x`` as ``x``, ``.x`` as ``.x``, absolute as is."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level >= 2:  # from ..x import y: a sibling package
                found.add(module)
            elif node.level == 1:  # from .x import y: a module of the same package
                found.add(f".{module}")
            else:
                found.add(module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def _top(module: str) -> str:
    return module.removeprefix("litellm_hygiene.").split(".")[0]


def test_no_rule_imports_a_wire_shape_the_integration_or_litellm() -> None:
    for path in sorted(RULES.glob("*.py")):
        for module in _imports(path):
            assert _top(module) not in FORBIDDEN, f"{path.name} imports {module}"


def test_the_interface_imports_no_shape() -> None:
    for path in sorted(VIEW.glob("*.py")):
        for module in _imports(path):
            assert _top(module) not in (*SHAPES, "_integration", "_rules", "litellm"), (
                f"_view/{path.name} imports {module}"
            )


def test_rules_import_each_other_no_more_than_they_did() -> None:
    rules = {p.stem for p in RULES.glob("*.py") if not p.stem.startswith("_")}
    found = {
        path.name: frozenset(m[1:] for m in _imports(path) if m[1:] in rules)
        for path in sorted(RULES.glob("*.py"))
        if path.stem != "__init__"
    }
    found = {name: modules for name, modules in found.items() if modules}
    for name, modules in found.items():
        assert modules <= RULE_TO_RULE.get(name, frozenset()), f"{name} now imports {modules}"
    stale = {n for n, m in RULE_TO_RULE.items() if found.get(n, frozenset()) != m}
    assert not stale, f"shrink RULE_TO_RULE for {sorted(stale)}: {[found.get(n) for n in stale]}"


_SPELLED_ONCE = {
    "__thought__": "_wire/_ids.py",
    "provider_specific_fields": "_wire/_keys.py",
    "thought_signature": "_wire/_keys.py",
    "thought_signatures": "_wire/_keys.py",
}
"""A wire fact's literal -> the one module that spells it as a value."""

_TYPES_AND_EMULATORS = ("_content.py", "_policy.py", "_families/", "_standin/")
"""Where the literal may also appear: ``Literal`` types (the neutral model's signature
sites, the policy's field names) and the stand-in, which emulates providers on its own."""


def _string_values(path: Path) -> list[tuple[int, str]]:
    """Every string constant of ``path`` that is a value, not documentation.

    Documentation: a string that is a statement of its own (a docstring, or the
    string under an assignment that documents it).
    """
    tree = ast.parse(path.read_text("utf-8"))
    documentation = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in documentation
    ]


def test_a_wire_fact_is_spelled_once() -> None:
    for literal, home in _SPELLED_ONCE.items():
        pattern = re.compile(rf"(^|[^a-z_.]){re.escape(literal)}($|[^a-z_])")
        places = []
        for path in sorted(PACKAGE.rglob("*.py")):
            name = path.relative_to(PACKAGE).as_posix()
            if name == home or name.startswith(_TYPES_AND_EMULATORS):
                continue
            places += [
                f"{name}:{line}" for line, value in _string_values(path) if pattern.search(value)
            ]
        assert not places, f"{literal!r} spelled outside {home}: {places}"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _package_graph() -> dict[str, set[str]]:
    """Each module of the package -> the package's modules it imports (lazily too)."""
    modules = {_module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = base[: len(base) - node.level + 1]
                    target = ".".join(parts + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                for alias in node.names:
                    inner = f"{target}.{alias.name}"
                    found.add(inner if inner in modules else target)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
        graph[name] = {module for module in found if module in modules and module != name}
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(module: str) -> None:
        order[module] = low[module] = len(order)
        stack.append(module)
        for other in graph[module]:
            if other not in order:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], order[other])
        if low[module] == order[module]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                circles.append(sorted(group))

    for module in graph:
        if module not in order:
            visit(module)
    return circles


def test_the_package_imports_in_no_circle() -> None:
    """No module reaches itself through what it imports, lazily or not.

    The target value (``_target``) imports no family; the resolver (``_resolve``) does.
    A lazy import that closes a circle hides it from Python, not from this test.
    """
    assert _circles(_package_graph()) == []


def test_a_circle_is_found() -> None:
    """The check sees a circle through a lazy import, as ``_target`` once had one."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _circles(graph) == [["a", "b", "c"]]
