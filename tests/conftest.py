"""Test-wide setup: LiteLLM's model map is read from the installed package, never fetched."""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from hypothesis import settings

# CI replays a fixed set of examples, so a landing is never decided by a random draw;
# local runs keep searching new transcripts (that search found most of the bugs).
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
