"""The glue's object, compiled once per compiler and flags and kept in xmpacc's cache.

Every program links the glue (templates/glue.c.j2: the runtime's table, the xmp.h library
and the C fast paths of runtime/include, about 7,000 lines once preprocessed), and the
glue is the same text for every program of one xmpacc.  Compiled in each link it took
1.4 of a small program's 2.6 s of compile time (gcc 12, -O2); so the link gets it as an
object from the cache folder (``XMPACC_CACHE_DIR``, runtime/checked_build.cache_dir),
compiled on the first link that needs it, as ccache would.

The key is what the object depends on: the compiler (its path and ``--version``), the
flags of the glue's compilation that are not the preprocessor's, and the glue's
preprocessed text (which holds the runtime headers it includes and what every -D and -I
did).  What the compiler said when it compiled the
glue is kept beside the object and said again on each use.  Flags that make a compile
write files of its own (dependency files, coverage notes, saved temporaries) or ask for
this machine's CPU (``-march=native``: a cluster's machines may share the cache folder
and not their CPUs) keep the glue in the link, as do ``XMPACC_GLUE_CACHE=0``, a folder
that cannot be written and any failure here: the link then compiles the glue itself and
reports as before.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from xmpacc.runtime.checked_build import cache_dir, make_once

# flags after which a compilation writes files beside its object, or none: the glue stays in the link
_OWN_FILES = ("-M", "-save-temps", "--coverage", "-ftest-coverage", "-fprofile", "-###", "-E", "-S",
              "-fdump", "-fcallgraph-info", "-fstack-usage")


def enabled() -> bool:
    return os.environ.get("XMPACC_GLUE_CACHE", "1") != "0"


Run = Callable[[list[str]], subprocess.CompletedProcess[str]]
_identities: dict[tuple[str, ...], str] = {}


def _compiler(command: list[str], run: Run) -> str:
    """The compiler's identity: where it is and what it says it is (asked once a process)."""
    key = tuple(command)
    if key not in _identities:
        where = os.path.realpath(shutil.which(command[0]) or command[0])
        _identities[key] = "\0".join([*command, where, run([*command, "--version"]).stdout])
    return _identities[key]


def glue_object(command: list[str], flags: list[str], codegen: list[str], glue: str, run: Run,
                report: Callable[[subprocess.CompletedProcess[str]], None]) -> str | None:
    """The glue compiled with ``flags`` by ``command``, from the cache (compiled into it on
    a miss); ``codegen``: those of the flags that are not the preprocessor's (its -I, -D,
    -include... are in the preprocessed text, and a folder of the user's -I is no reason
    for another object); ``run`` runs each command (build.Toolchain.run: -v prints it);
    ``report`` gets what the compiler said (on a hit, what it said then).  None where the
    link should compile the glue itself."""
    cache = cache_dir()
    if cache is None or not enabled() or any(f.startswith(_OWN_FILES) or "native" in f for f in flags):
        return None   # (-march=native: another machine that shares the cache folder has another CPU)
    try:
        pre = run([*command, "-E", "-P", *flags, glue])   # -P: no line markers (the glue's path)
        if pre.returncode != 0:
            return None
        what = "\0".join([_compiler(command, run), *codegen, pre.stdout])
        key = hashlib.sha256(what.encode()).hexdigest()[:32]
        target, said = cache / f"glue-{key}.o", cache / f"glue-{key}.txt"

        def compile_glue(tmp: Path) -> bool:
            made = run([*command, "-c", *flags, glue, "-o", str(tmp)])
            if made.returncode == 0:
                said.write_text(made.stderr)
            return made.returncode == 0

        if not make_once(target, compile_glue):
            return None
        report(subprocess.CompletedProcess([], 0, "", _text(said)))
        return str(target)
    except OSError:
        return None


def _text(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""
