"""Checked builds, compiler side (run side: runtime/checked_build.py).

``xmpacc -fcheck`` compiles the generated C with ``-D_XMPACC_CHECK``, which turns every
subscript of a distributed array into a checked one (runtime/include/xmpacc_check.h), and
marks the executable as checked.  Without it the executable carries what a checked run
needs to link the checked variant itself (``XMPACC_CHECK=1``): the generated sources, the
objects of plain C files and the link command, with the paths that will differ replaced
by placeholders.  Storing them costs a few kilobytes and no compilation.

    cc -shared -fPIC ... -I /site/xmpacc/runtime/include /tmp/x/prog.host.c ... -o /tmp/x/program.so
    -> cc -shared -fPIC -D_XMPACC_CHECK ... -I @INCLUDE@ @DIR@/prog.host.c ... -o @OUT@
"""

from __future__ import annotations

import json
import os

from xmpacc.runtime.checked_build import (
    CHECK_DEFINE,
    DIR,
    INCLUDE,
    MARKER,
    OUT,
    PREFIX,
    RECIPE,
)


def flags(enabled: bool) -> list[str]:
    """What -fcheck adds to the compilation of the generated C."""
    return [CHECK_DEFINE] if enabled else []


def marker() -> dict[str, bytes]:
    """The zip entries of an executable built with -fcheck."""
    return {MARKER: b"compiled with -D_XMPACC_CHECK\n"}


def _portable(arg: str, names: dict[str, str], so_path: str, include_dir: str) -> str:
    if arg in names:
        return f"{DIR}/{names[arg]}"
    if arg == so_path:
        return OUT
    if arg == include_dir:
        return INCLUDE
    if arg.startswith(("-I", "-L")) and len(arg) > 2 and not os.path.isabs(arg[2:]):
        return arg[:2] + os.path.abspath(arg[2:])
    if not arg.startswith("-") and os.path.exists(arg):
        return os.path.abspath(arg)   # the user's .o, .a, .so: run time may have another cwd
    return arg


def payload(command: list[str], so_path: str, inputs: list[str], include_dir: str) -> dict[str, bytes]:
    """The zip entries from which a checked run links the checked variant: ``command``
    linked ``so_path`` from ``inputs`` (generated sources and objects)."""
    names = {path: os.path.basename(path) for path in inputs}
    portable = [_portable(a, names, so_path, include_dir) for a in command]
    portable.insert(portable.index("-fPIC") + 1, CHECK_DEFINE)
    out = {PREFIX + RECIPE: json.dumps({"command": portable, "files": sorted(names.values())}).encode()}
    for path, name in names.items():
        with open(path, "rb") as f:
            out[PREFIX + name] = f.read()
    return out
