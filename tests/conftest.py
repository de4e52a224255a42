"""Test-wide setup: LiteLLM's model map is read from the installed package, never fetched."""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
