"""Compile and link flags for programs that include <mpi.h> (global-view §9).

A program that mixes MPI and XMP must be compiled against the MPI library that mpi4py
loads at run time, so that the runtime and the program share one MPI (one MPI_Init, the
same communicators).  The compiler never imports mpi4py: a short subprocess of the Python
that runs the executables asks mpi4py instead.  In order:

1. ``XMPACC_MPICC``: an MPI compiler wrapper to ask (``mpicc -show`` / ``--showme``);
2. mpi4py's build configuration (``mpi4py.get_config()['mpicc']``, source builds);
3. the libmpi that mpi4py loads (``mpi4py.MPI`` imported without MPI_Init, read from
   ``/proc/self/maps``): the ``mpicc`` of its installation, else its ``include`` and
   ``lib`` folders (the MPICH wheel's layout);
4. ``mpicc`` on PATH.

The result is -I/-D flags for compiling and -L/-l/-Wl flags for linking.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

_PROBE = r"""
import json, sys
import mpi4py
out = {"config": {k: str(v) for k, v in mpi4py.get_config().items()}, "libs": []}
mpi4py.rc.initialize = False
mpi4py.rc.finalize = False
try:
    from mpi4py import MPI
    with open("/proc/self/maps") as f:
        paths = {line.split()[-1] for line in f if "libmpi" in line}
    out["libs"] = sorted(p for p in paths if p.startswith("/"))
except Exception as e:
    out["error"] = str(e)
json.dump(out, sys.stdout)
"""


class MpiFlagsError(Exception):
    """No MPI installation to compile a program that includes <mpi.h> against."""


def uses_mpi(texts: list[str]) -> bool:
    """Does any of these C sources include <mpi.h>?"""
    include = re.compile(r'^\s*#\s*include\s*[<"]mpi\.h[>"]', re.MULTILINE)
    return any(include.search(t) for t in texts)


def _show(wrapper: str) -> list[str] | None:
    """The flags an MPI compiler wrapper adds (its command line without the compiler)."""
    for option in ("-show", "--showme"):
        try:
            proc = subprocess.run([wrapper, option], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            return None
        if proc.returncode == 0 and proc.stdout.strip():
            return shlex.split(proc.stdout.strip())[1:]
    return None


def _probe(python: str) -> dict:
    try:
        proc = subprocess.run([python, "-c", _PROBE], capture_output=True, text=True, timeout=60)
        return json.loads(proc.stdout) if proc.returncode == 0 else {}
    except (OSError, subprocess.TimeoutExpired, json.JSONDecodeError):
        return {}


def _from_library(lib: str) -> list[str] | None:
    """Flags for the installation that holds ``lib`` (…/lib/libmpi.so.12)."""
    libdir = os.path.dirname(lib)
    prefix = os.path.dirname(libdir)
    wrapper = os.path.join(prefix, "bin", "mpicc")
    if os.access(wrapper, os.X_OK):
        flags = _show(wrapper)
        if flags:
            return flags
    include = os.path.join(prefix, "include")
    if not os.path.exists(os.path.join(include, "mpi.h")):
        return None
    return [f"-I{include}", f"-L{libdir}", f"-Wl,-rpath,{libdir}", f"-l:{os.path.basename(lib)}"]


@functools.lru_cache(maxsize=4)
def mpi_flags(python: str = sys.executable) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(compile flags, link flags) for the MPI that mpi4py under ``python`` uses."""
    flags: list[str] | None = None
    if os.environ.get("XMPACC_MPICC"):
        flags = _show(os.environ["XMPACC_MPICC"])
    if flags is None:
        probe = _probe(python)
        wrapper = probe.get("config", {}).get("mpicc")
        flags = _show(wrapper) if wrapper else None
        for lib in probe.get("libs", []) if flags is None else []:
            flags = _from_library(lib)
            if flags:
                break
    if flags is None and shutil.which("mpicc"):
        flags = _show("mpicc")
    if flags is None:
        raise MpiFlagsError("this program includes <mpi.h>, but no MPI installation was found for it "
                            "(mpi4py's, or mpicc on PATH); set XMPACC_MPICC to its mpicc")
    compile_flags = tuple(f for f in flags if f.startswith(("-I", "-D")))
    link_flags = tuple(f for f in flags if f.startswith(("-L", "-l", "-Wl,", "-pthread")))
    return compile_flags, link_flags
