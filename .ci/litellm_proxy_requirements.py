"""Print the requirements of the installed LiteLLM's ``proxy`` extra, one a line.

Run by ``.ci/run`` (and ``tests/support/litellm_release_check.py``) with the virtualenv's Python
of the LiteLLM under test. ``pip install 'litellm[proxy]==V'`` cannot resolve for every
release: 1.108.8 and newer pin ``litellm-enterprise`` and ``litellm-proxy-extras``
releases that are not always on the registry, and 1.110.0 and newer a ``litellm-proxy``
package the registry here does not serve; pip then falls back to an older LiteLLM. All
three are optional at run time: the proxy imports ``litellm_enterprise`` under
``try/except ImportError``, ``litellm_proxy_extras`` only to migrate a database, and no
module of 1.110.2 imports ``litellm_proxy`` (the proxy's code is still in the ``litellm``
wheel, ``litellm/proxy/``). So the rest of the extra is installed for the release under
test, and these three only where the registry has them.

Usage: ``python litellm_proxy_requirements.py required|optional``.
"""

from __future__ import annotations

import sys
from importlib.metadata import requires

from packaging.requirements import Requirement

OPTIONAL = frozenset({"litellm-enterprise", "litellm-proxy", "litellm-proxy-extras"})


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
