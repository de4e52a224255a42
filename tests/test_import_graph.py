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

PACKAGE = Path(__file__).resolve().parent.parent / "litellm_hygiene"
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
