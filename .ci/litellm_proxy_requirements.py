"""Print the requirements of the installed LiteLLM's ``proxy`` extra, one a line.

Run by ``.ci/run`` with the newest-LiteLLM virtualenv's Python. ``pip install
'litellm[proxy]==V'`` cannot resolve for every release: 1.108.8 and newer pin
``litellm-enterprise`` and ``litellm-proxy-extras`` releases that are not always on the
registry, and then pip falls back to an older LiteLLM. Both are optional at run time
(the proxy imports ``litellm_enterprise`` under ``try/except ImportError``, and
``litellm_proxy_extras`` only to migrate a database), so CI installs the rest of the
extra for the release it tests, and these two only where the registry has them.

Usage: ``python litellm_proxy_requirements.py required|optional``.
"""

from __future__ import annotations

import sys
from importlib.metadata import requires

from packaging.requirements import Requirement

OPTIONAL = frozenset({"litellm-enterprise", "litellm-proxy-extras"})


def proxy_requirements(optional: bool) -> list[str]:
    """The proxy extra's requirements for this Python, markers removed."""
    out = []
    for line in requires("litellm") or []:
        req = Requirement(line)
        if req.marker is None or not req.marker.evaluate({"extra": "proxy"}):
            continue  # a base requirement (installed already), or another extra's
        if req.marker.evaluate({"extra": ""}):
            continue  # holds without the extra: a base requirement
        if (req.name in OPTIONAL) is optional:
            req.marker = None
            out.append(str(req))
    return out


if __name__ == "__main__":
    if sys.argv[1:] not in (["required"], ["optional"]):
        sys.exit(__doc__.rsplit("Usage: ", 1)[1].strip())
    print("\n".join(proxy_requirements(sys.argv[1] == "optional")))
