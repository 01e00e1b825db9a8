"""The host C compiler that xmpacc runs, and the environment it runs in.

``$XMPACC_CC`` names it (it may have words: ``ccache gcc``), else ``$CC`` unless that is
xmpacc itself (a build run with ``CC=xmpacc``: make, CMake), else ``cc`` (like MPICH_CC /
OMPI_CC for mpicc).  Every command xmpacc runs gets ``RECURSION_GUARD`` in its
environment: an xmpacc started with it was started as its own host compiler (a wrapper
script that runs xmpacc), which would never end, so it stops with a message instead.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys

RECURSION_GUARD = "_XMPACC_RUNS_HOST_CC"


def host_cc() -> str:
    for var in ("XMPACC_CC", "CC"):
        value = os.environ.get(var, "").strip()
        if value and not _is_xmpacc(value):
            return value
    return "cc"


def _is_xmpacc(command: str) -> bool:
    words = shlex.split(command)
    first = words[1] if len(words) > 1 and os.path.basename(words[0]) == "ccache" else (words or [""])[0]
    if os.path.basename(first).startswith("xmpacc"):
        return True
    found = shutil.which(first)
    return found is not None and os.path.realpath(found) == os.path.realpath(sys.argv[0])


def child_env() -> dict[str, str]:
    return {**os.environ, RECURSION_GUARD: "1"}
