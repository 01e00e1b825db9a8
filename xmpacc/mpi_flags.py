"""Compile and link flags for programs that include <mpi.h> or xmp.h (global-view §9).

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

The result is -I/-D flags for compiling and -L/-l/-Wl flags for linking.  They are
added where a file needs them: compiling (and preprocessing) a file that includes
<mpi.h> or xmp.h (which includes <mpi.h>, as Omni's does), directly or through the
user's headers, linking a program or library from such files, or from objects and
archives that use MPI symbols (read with elf.py, so ``xmpacc a.o b.o`` of an MPI program
links too).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from xmpacc import elf
from xmpacc.runtime.checked_build import cache_dir

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


# xmp.h includes <mpi.h>, as Omni's does
_INCLUDE_MPI = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"](mpi|xmp)\.h[>"]', re.MULTILINE)


def mpi_header(texts: list[str]) -> str | None:
    """The first of <mpi.h> and <xmp.h> that one of these C sources includes, said for a
    message ("<xmp.h>, which includes <mpi.h>"); None when none does.  A program that
    includes neither is compiled and linked without MPI: no question to mpi4py, no libmpi."""
    for t in texts:
        m = _INCLUDE_MPI.search(t)
        if m:
            return "<mpi.h>" if m.group(1) == "mpi" else "<xmp.h>, which includes <mpi.h>"
    return None


def uses_mpi(texts: list[str]) -> bool:
    """Does any of these C sources include <mpi.h> (or xmp.h)?"""
    return mpi_header(texts) is not None


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


def _fingerprint(python: str) -> str | None:
    """What the answer depends on, for the cache: the Python, where its mpi4py lies and when
    that was installed, $XMPACC_MPICC and the mpicc on PATH.  None (no cache) for another
    Python than the compiler's, whose mpi4py cannot be found without running it."""
    if os.path.realpath(python) != os.path.realpath(sys.executable):
        return None
    try:
        # the spec of a top-level package: found, not imported
        spec = importlib.util.find_spec("mpi4py")
        where = os.path.dirname(spec.origin) if spec and spec.origin else ""
        stamp = os.stat(where).st_mtime_ns if where else 0
    except (ImportError, ValueError, OSError):
        where, stamp = "", 0
    parts = [os.path.realpath(python), where, str(stamp), os.environ.get("XMPACC_MPICC", ""),
             shutil.which("mpicc") or ""]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:24]


def _cache_file(python: str) -> Path | None:
    key = _fingerprint(python)
    folder = cache_dir() if key else None
    return folder / f"mpi-flags-{key}.json" if folder else None


@functools.lru_cache(maxsize=4)
def mpi_flags(python: str = sys.executable) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(compile flags, link flags) for the MPI that mpi4py under ``python`` uses.  Asking
    mpi4py costs a Python start (0.1 s, a sixth of a small compile), so the answer is kept
    in the cache folder under a fingerprint of what it depends on."""
    cache = _cache_file(python)
    try:
        if cache is not None and cache.exists():
            cflags, ldflags = json.loads(cache.read_text())
            # an MPI removed since (the folders its flags name) is asked about again
            if all(os.path.isdir(f[2:]) for f in (*cflags, *ldflags) if f.startswith(("-I", "-L"))):
                return tuple(cflags), tuple(ldflags)
    except (OSError, ValueError, TypeError):
        pass
    found = _ask(python)
    if cache is not None:
        try:   # written whole, then renamed: a compile beside this one reads all or nothing
            tmp = cache.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(found))
            os.replace(tmp, cache)
        except OSError:
            pass
    return found


def _ask(python: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
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
        raise MpiFlagsError("no MPI installation was found for it (mpi4py's, or mpicc on PATH); set "
                            "XMPACC_MPICC to its mpicc")
    compile_flags = tuple(f for f in flags if f.startswith(("-I", "-D")))
    link_flags = tuple(f for f in flags if f.startswith(("-L", "-l", "-Wl,", "-pthread")))
    return compile_flags, link_flags


# symbols of the MPI standard, its profiling layer and the two big implementations' handles
_MPI_SYMBOLS = ("MPI_", "PMPI_", "MPIX_", "ompi_", "MPIR_")


def _library(name: str, dirs: list[str]) -> str | None:
    """The static library ``-lNAME`` links from the user's -L folders (None when the first
    match is a shared library or the library lies elsewhere: it brings its own MPI)."""
    for d in dirs:
        if name.startswith(":"):
            if os.path.exists(os.path.join(d, name[1:])):
                return os.path.join(d, name[1:]) if name.endswith(".a") else None
            continue
        if os.path.exists(os.path.join(d, f"lib{name}.so")):
            return None
        if os.path.exists(os.path.join(d, f"lib{name}.a")):
            return os.path.join(d, f"lib{name}.a")
    return None


def input_using_mpi(items: list[str], inputs: elf.Inputs | None = None) -> str | None:
    """The first object or static library among the link items that uses MPI, said for a
    message ("'libx.a' uses MPI (MPI_Send)"); None when none does.  ``inputs`` reads the
    files (shared with the rest of the link step, so that each is read once)."""
    inputs = inputs or elf.Inputs()
    dirs = [i[2:] for i in items if i.startswith("-L")]
    for item in items:
        path = _library(item[2:], dirs) if item.startswith("-l") else item
        if path is None or path.startswith("-") or not path.endswith((".o", ".a", ".lo")):
            continue
        data = inputs.read(path)
        if data is None:
            continue   # the linker says it
        for obj in elf.objects_in(data):
            used = sorted(s for s in elf.undefined_symbols(obj) if s.startswith(_MPI_SYMBOLS))
            if used:
                return f"'{path}' uses MPI ({used[0]})"
    return None


def _flags_for(why: str | None, python: str) -> tuple[list[str], list[str]]:
    if why is None:
        return [], []
    try:
        cflags, ldflags = mpi_flags(python)
    except MpiFlagsError as e:
        raise MpiFlagsError(f"{why}, but {e}") from None
    return list(cflags), list(ldflags)


def compile_args(texts: list[str], python: str) -> list[str]:
    """-I/-D flags for compiling C that includes <mpi.h> or xmp.h ([] for other C)."""
    header = mpi_header(texts)
    return _flags_for(f"this file includes {header}" if header else None, python)[0]


def link_args(texts: list[str], items: list[str], python: str,
              inputs: elf.Inputs | None = None) -> tuple[list[str], list[str]]:
    """(compile, link) flags for a link of C sources ``texts`` and the user's ``items``."""
    header = mpi_header(texts)
    if header:
        return _flags_for(f"this program includes {header}", python)
    return _flags_for(input_using_mpi(items, inputs), python)
