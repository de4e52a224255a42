"""Quiet by default: resolving a model LiteLLM does not know prints nothing.

LiteLLM prints a red ``Provider List: ...`` banner to stdout before it raises for an
unknown model string; hygiene asks LiteLLM about models as a matter of course (an unknown
one is a legitimate answer), so it must ask with the banner off and leave the caller's
setting as it found it.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

CODE = """
import litellm, litellm_hygiene as h
litellm.suppress_debug_info = {setting}
assert h.resolve_target("my-local-model").provider is None
h.validate_messages([{{"role": "user", "content": "hi"}}], "another-unknown-model")
h.sanitize_messages([{{"role": "user", "content": "hi"}}], "a-third-unknown-model")
assert not h.predict_overflow([{{"role": "user", "content": "hi"}}], "a-fourth").can_predict
assert litellm.suppress_debug_info is {setting}, "the caller's setting was changed"
"""


@pytest.mark.parametrize("setting", [False, True])
def test_unknown_models_print_no_banner(setting: bool) -> None:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = subprocess.run(
        [sys.executable, "-c", CODE.format(setting=setting)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == ""
    assert "Provider List" not in done.stderr


def test_litellm_itself_still_prints_it() -> None:
    """The banner is LiteLLM's, printed when its own resolution fails: the test is live."""
    code = (
        "import litellm\n"
        "try:\n    litellm.get_llm_provider('my-local-model')\nexcept Exception:\n    pass\n"
    )
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert "Provider List" in done.stdout


def test_importing_the_package_loads_neither_litellm_nor_the_command_line() -> None:
    """``import litellm_hygiene`` stays light: LiteLLM (seconds to import), click, the demo
    and the stand-in load only when used."""
    code = (
        "import sys, litellm_hygiene\n"
        "heavy = [m for m in sys.modules if m == 'litellm' or m.startswith(('litellm.', "
        "'click', 'litellm_hygiene._cli', 'litellm_hygiene._demo', 'litellm_hygiene._standin'))]\n"
        "assert not heavy, heavy\n"
    )
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == ""
