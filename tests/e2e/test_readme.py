"""The README's front door, and the pages of ``docs/`` behind it, work as written.

Every ``python`` block runs, in order, in one fresh interpreter, with the stand-in serving
every provider's API where ``litellm-hygiene standin`` would. The order is the README's
blocks first, then each page of :data:`DOC_PAGES` in turn: the pages continue the
README's quickstart session (they use its ``history`` and ``tools``), so a block may use
what any block before it in that order defined. A page under ``docs/`` with a ``python``
block that is not in :data:`DOC_PAGES` fails the test until it is given its place.

The two commands between their markers in README.md are the ones ``.ci/run`` runs, each in
a fresh virtualenv. Every relative link in the pages (README.md, ``docs/*.md``,
``benchmarks/RESULTS.md``) names a file that exists, and every ``#anchor`` a heading of
the page it points into.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from litellm_hygiene._standin import StandIn
from litellm_hygiene._standin.serve import answer

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text("utf-8")
CI = (ROOT / ".ci" / "run").read_text("utf-8")

DOC_PAGES = (
    "docs/integration.md",
    "docs/overflow-and-fitting.md",
    "docs/architecture.md",
)
"""The pages whose ``python`` blocks run after the README's, in this order (each page's
blocks in their own order). The README says so in its quickstart."""

LINKED_PAGES = sorted(
    [ROOT / "README.md", ROOT / "benchmarks" / "RESULTS.md", *(ROOT / "docs").glob("*.md")]
)
"""The pages whose relative links and anchors must resolve."""

FENCE = re.compile(r"^```.*?^```[ \t]*$", flags=re.S | re.M)
HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$", flags=re.M)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
INLINE_CODE = re.compile(r"`[^`\n]*`")


def blocks(language: str, text: str = README) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", text, flags=re.S | re.M)


def page(name: str) -> str:
    return (ROOT / name).read_text("utf-8")


def python_blocks() -> list[str]:
    """Every ``python`` block of the README, then of each page of ``DOC_PAGES``."""
    code = blocks("python")
    for name in DOC_PAGES:
        code += blocks("python", page(name))
    return code


def marked(name: str) -> str:
    found = re.search(rf"<!-- {name} -->\n```bash\n(.*?)\n```\n<!-- /{name} -->", README, re.S)
    assert found, f"README.md has no {name} block"
    return found.group(1)


def anchors(text: str) -> set[str]:
    """The ``#anchor`` of every heading of a Markdown page, as GitHub writes them."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    for match in HEADING.finditer(FENCE.sub("", text)):
        title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", match.group(2))  # a link: its text
        slug = re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def links(text: str) -> list[str]:
    """The target of every Markdown link outside code."""
    return LINK.findall(INLINE_CODE.sub("", FENCE.sub("", text)))


@pytest.fixture
def standin() -> Iterator[StandIn]:
    with StandIn(respond=answer) as server:
        yield server


def test_every_python_block_runs_in_order(standin: StandIn, tmp_path: Path) -> None:
    code = python_blocks()
    assert len(code) >= 8
    script = tmp_path / "readme.py"
    script.write_text("\n\n".join(code), "utf-8")
    env = {
        **os.environ,
        "HYGIENE_STANDIN_URL": standin.base_url,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    done = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-5000:]
    assert "'target': 'mistral/mistral-large-latest'" in done.stdout
    # What the pages show as output in comments is what the blocks print.
    for name, shown in (
        ("README.md", "{'provider': 'mistral', 'api': 'mistral', 'model': 'mistral-large-latest'}"),
        ("docs/integration.md", "4 role turn_order Unexpected role 'user' after role 'tool'"),
        (
            "docs/integration.md",
            "2 tool_calls[0].id tool_call_id Tool call id was toolu_01A09q90qw90lq917835lq9 but",
        ),
        ("docs/integration.md", "{'foreign_reasoning': 1, 'tool_pairing': 1}"),
        ("docs/overflow-and-fitting.md", "['system', 'system', 'user'] (1, 2, 3) 49"),
    ):
        assert shown in done.stdout, shown
        assert shown in page(name), (name, shown)
    assert "Provider List" not in done.stdout
    assert standin.received, "the blocks called the stand-in"
    assert all(answer(request).status == 200 for request in standin.received)  # type: ignore[union-attr]


def test_every_page_with_python_blocks_has_its_place_in_the_order() -> None:
    with_code = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "docs").glob("*.md")
        if blocks("python", path.read_text("utf-8"))
    }
    assert with_code == set(DOC_PAGES)
    assert not blocks("python", page("benchmarks/RESULTS.md"))
    assert all(name in README for name in DOC_PAGES), "the README names the order"


def test_the_two_commands_are_the_ones_ci_runs() -> None:
    demo, tests = marked("demo-command"), marked("test-command")
    assert demo.startswith("python3 -m venv .venv && ") and demo.endswith("litellm-hygiene demo")
    assert "pytest" in tests
    for name in ("demo-command", "test-command"):
        assert f"<!-- {name} -->" in CI


def test_the_anchor_slugs_are_githubs() -> None:
    text = "# A: `b.c` and d_e\n```\n# not a heading\n```\n## Again\n## Again\n"
    assert anchors(text) == {"a-bc-and-d_e", "again", "again-1"}
    assert links("[x](a.md#b) `[y](c.md)`\n```\n[z](d.md)\n```\n") == ["a.md#b"]


@pytest.mark.parametrize("source", LINKED_PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_and_anchor_resolves(source: Path) -> None:
    broken: list[str] = []
    for target in links(source.read_text("utf-8")):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):
            continue  # https:, mailto:: not this test's to check
        path, _, anchor = target.partition("#")
        linked = (source.parent / path).resolve() if path else source
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and anchor not in anchors(linked.read_text("utf-8")):
            broken.append(f"{target}: no such heading in {linked.relative_to(ROOT)}")
    assert not broken, broken
