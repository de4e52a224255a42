"""The rules are declared once, for every wire shape: what they may import.

A rule sees a conversation through the neutral model and the ``Wire`` interface
(``_rules._base``). It never imports a request shape (``_anthropic``, ``_responses``), the
integration with LiteLLM, or LiteLLM itself. The chat shape (``_openai``) is where the
rules' facts are still read today: each module a rule imports from it is listed here, and
the list may only shrink (issue "A provider is one place" moves those facts behind the
interface); a new import of a wire module fails this test.
"""

from __future__ import annotations

import ast
from pathlib import Path

RULES = Path(__file__).resolve().parent.parent / "litellm_hygiene" / "_rules"
FORBIDDEN = ("_anthropic", "_responses", "_integration", "_standin", "_demo", "_cli", "litellm")

EXPECTED: dict[str, frozenset[str]] = {
    "_base.py": frozenset({"_openai._decode", "_openai._edits", "_openai._facts"}),
    "consecutive_turns.py": frozenset({"_openai._decode", "_openai._facts", "_openai._parts"}),
    "empty_content.py": frozenset({"_openai._facts"}),
    "foreign_reasoning.py": frozenset({"_openai._facts"}),
    "hygiene_stamp.py": frozenset({"_openai", "_openai._facts"}),
    "image_payload.py": frozenset({"_openai._facts"}),
    "image_unsupported.py": frozenset({"_openai._facts"}),
    "lone_reasoning.py": frozenset({"_openai._facts"}),
    "missing_reasoning.py": frozenset({"_openai._facts"}),
    "non_base64_signature.py": frozenset({"_openai._decode", "_openai._facts"}),
    "null_content.py": frozenset({"_openai._facts"}),
    "response_only_field.py": frozenset({"_openai._facts", "_openai._tools"}),
    "tool_arguments.py": frozenset({"_openai._facts", "_openai._json"}),
    "tool_call_id.py": frozenset({"_openai._facts", "_openai._tools"}),
    "tool_pairing.py": frozenset({"_openai._facts", "_openai._tools"}),
}
"""Rule module -> the ``_openai`` modules it imports today; a rule missing here imports
none (``thinking_tool_loop``, ``turn_order``, ``assistant_first``, ``failed_turn``...)."""


def _imports(path: Path) -> set[str]:
    """The modules ``path`` imports, relative ones as dotted paths from the package."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level >= 2:  # from ..x import y: a sibling package of _rules
                found.add(module)
            elif node.level == 0:
                found.add(module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_no_rule_imports_a_request_shape_the_integration_or_litellm() -> None:
    for path in sorted(RULES.glob("*.py")):
        for module in _imports(path):
            top = module.split(".")[0]
            assert top not in FORBIDDEN, f"{path.name} imports {module}"


def test_the_rules_read_the_chat_shape_no_more_than_they_did() -> None:
    found = {
        path.name: frozenset(m for m in _imports(path) if m.split(".")[0] == "_openai")
        for path in sorted(RULES.glob("*.py"))
    }
    found = {name: modules for name, modules in found.items() if modules}
    for name, modules in found.items():
        assert modules <= EXPECTED.get(name, frozenset()), f"{name} now imports {modules}"
    stale = {name for name, modules in EXPECTED.items() if found.get(name, frozenset()) != modules}
    assert not stale, (
        f"shrink EXPECTED for {sorted(stale)}: {[found.get(n) for n in sorted(stale)]}"
    )
