"""Where a checked run gets its program: ``xmpacc -fcheck`` builds a checked executable,
and ``XMPACC_CHECK=1`` makes one out of an ordinary executable on first use.

Every executable that xmpacc writes carries, next to ``program.so``, what it was linked
from (``check/``, written by xmpacc/checked.py): the generated C of every XMP file linked
into it (whether compiled in the same command or taken from ``-c`` objects and archives)
and ``recipe.json``, the commands that compile each file again and link them with the
program's other objects and libraries, with ``@DIR@``, ``@OUT@`` and ``@INCLUDE@`` for
the paths and the folder each command ran in.  A run with ``XMPACC_CHECK=1`` runs those
commands (they compile with ``-D_XMPACC_CHECK``, include/xmpacc_check.h) and keeps the
result in a cache (``$XMPACC_CACHE_DIR``, else ``$XDG_CACHE_HOME/xmpacc`` or
``~/.cache/xmpacc``), keyed by the executable's contents and the runtime's headers: the
first checked run of a program pays its C compilation (the processes of a job wait
for the first one, under a file lock), later runs none, and a compilation without it
pays nothing but storing its sources.  It runs before MPI starts (no fork under MPI).
An executable built with ``-fcheck`` holds the marker ``checked`` and is always checked.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import subprocess
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

MARKER = "checked"              # zip entry of an executable built with -fcheck
PREFIX = "check/"               # zip entries of the sources of the checked variant
RECIPE = "recipe.json"
DIR, OUT, INCLUDE = "@DIR@", "@OUT@", "@INCLUDE@"
CHECK_DEFINE = "-D_XMPACC_CHECK"
INCLUDE_DIR = Path(__file__).resolve().parent / "include"


class CheckBuildError(Exception):
    """The checked variant cannot be built; the message says why and what to do."""


@dataclass(frozen=True)
class CheckedProgram:
    library: bytes              # program.so compiled with -D_XMPACC_CHECK


def requested() -> bool:
    return os.environ.get("XMPACC_CHECK", "") not in ("", "0")


def prepare(executable: str) -> CheckedProgram | None:
    """The checked program for this run, or None for an unchecked run."""
    with zipfile.ZipFile(executable) as z:
        names = set(z.namelist())
        if MARKER in names:
            return CheckedProgram(z.read("program.so"))
        if not requested():
            return None
        if PREFIX + RECIPE not in names:
            raise CheckBuildError("this executable does not carry the sources of its checked variant; "
                                  "build it again with 'xmpacc -fcheck'")
        payload = {n[len(PREFIX):]: z.read(n) for n in sorted(names) if n.startswith(PREFIX)}
        digest = hashlib.sha256(z.read("program.so"))
    for name, data in payload.items():
        digest.update(name.encode() + b"\0" + data)
    for header in sorted(INCLUDE_DIR.glob("*.h")):
        digest.update(header.read_bytes())
    return CheckedProgram(_cached(digest.hexdigest()[:32], payload))


def cache_dir() -> Path | None:
    """xmpacc's cache folder (made if missing), None where it cannot be written.  The
    compiler keeps its MPI flags there too (xmpacc/mpi_flags.py)."""
    base = os.environ.get("XMPACC_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "xmpacc")
    try:
        os.makedirs(base, exist_ok=True)
        return Path(base) if os.access(base, os.W_OK) else None
    except OSError:
        return None


def make_once(target: Path, make: Callable[[Path], bool]) -> bool:
    """Whether ``target`` (in the cache folder) exists, made by ``make(tmp)`` where it does
    not (``make`` writes ``tmp`` and says whether it did).  One process of a job makes it,
    the others wait for it; it is written whole under another name, then renamed, so that
    a reader finds all of it or nothing.  The compiler keeps the glue's object so too
    (xmpacc/glue_cache.py)."""
    if target.exists():
        return True
    with open(target.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)     # one process of the job makes it, the others wait
        if target.exists():
            return True
        tmp = target.with_name(f".{target.stem}.{os.getpid()}{target.suffix}")
        try:
            if not make(tmp):
                return False
            os.replace(tmp, target)
        finally:
            tmp.unlink(missing_ok=True)
    return True


def _cached(key: str, payload: dict[str, bytes]) -> bytes:
    cache = cache_dir()
    if cache is None:
        return _build(payload)
    target = cache / f"checked-{key}.so"

    def build(tmp: Path) -> bool:
        tmp.write_bytes(_build(payload))
        return True

    make_once(target, build)
    return target.read_bytes()


def materialize(payload: dict[str, bytes], directory: str) -> list[tuple[list[str], str]]:
    """Write the recipe's files into ``directory``; return its commands as (argv, folder to
    run in), placeholders filled in.  The last command writes ``directory/program.so``.
    A folder that is gone is replaced by ``directory`` (the commands' own files are there;
    the user's would be missing, which the compiler then says)."""
    recipe = json.loads(payload[RECIPE])
    for name in recipe["files"]:
        path = Path(directory) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(payload[name])
    out = str(Path(directory) / "program.so")
    return [([a.replace(DIR, directory).replace(OUT, out).replace(INCLUDE, str(INCLUDE_DIR))
              for a in c["argv"]],
             c["cwd"] if os.path.isdir(c["cwd"]) else directory) for c in recipe["commands"]]


def _build(payload: dict[str, bytes]) -> bytes:
    with tempfile.TemporaryDirectory(prefix="xmpacc-check-") as tmp:
        for cmd, cwd in materialize(payload, tmp):
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                                      check=False, cwd=cwd)
            except OSError as e:
                raise CheckBuildError(f"cannot run the C compiler '{cmd[0]}' ({e.strerror}); build the "
                                      "program with 'xmpacc -fcheck' instead") from None
            if proc.returncode != 0:
                raise CheckBuildError("the C compiler failed on the checked variant; build the program with "
                                      "'xmpacc -fcheck' instead:\n" + proc.stderr.strip())
        return (Path(tmp) / "program.so").read_bytes()
