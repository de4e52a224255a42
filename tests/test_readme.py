"""The README's front door works as written.

Every ``python`` block runs, in order, in one fresh interpreter (the README says so), with
the stand-in serving every provider's API where ``litellm-hygiene standin`` would. The two
commands between their markers are the ones ``.ci/run`` runs, each in a fresh virtualenv.
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

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text("utf-8")
CI = (ROOT / ".ci" / "run").read_text("utf-8")


def blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", README, flags=re.S | re.M)


def marked(name: str) -> str:
    found = re.search(rf"<!-- {name} -->\n```bash\n(.*?)\n```\n<!-- /{name} -->", README, re.S)
    assert found, f"README.md has no {name} block"
    return found.group(1)


@pytest.fixture
def standin() -> Iterator[StandIn]:
    with StandIn(respond=answer) as server:
        yield server


def test_every_python_block_runs_in_order(standin: StandIn, tmp_path: Path) -> None:
    code = blocks("python")
    assert len(code) >= 6
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
    # What the README shows as output in comments is what the blocks print.
    for shown in (
        "{'provider': 'mistral', 'api': 'mistral', 'model': 'mistral-large-latest'}",
        "4 role turn_order Unexpected role 'user' after role 'tool'",
        "2 tool_calls[0].id tool_call_id Tool call id was toolu_01A09q90qw90lq917835lq9 but must",
        "{'foreign_reasoning': 1, 'tool_pairing': 1}",
        "['system', 'system', 'user'] (1, 2, 3) 49",
    ):
        assert shown in done.stdout, shown
        assert shown in README
    assert "Provider List" not in done.stdout
    assert standin.received, "the blocks called the stand-in"
    assert all(answer(request).status == 200 for request in standin.received)  # type: ignore[union-attr]


def test_the_two_commands_are_the_ones_ci_runs() -> None:
    demo, tests = marked("demo-command"), marked("test-command")
    assert demo.startswith("python3 -m venv .venv && ") and demo.endswith("litellm-hygiene demo")
    assert "pytest" in tests
    for name in ("demo-command", "test-command"):
        assert f"<!-- {name} -->" in CI
