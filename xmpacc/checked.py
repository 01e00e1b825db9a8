"""Checked builds, compiler side (run side: runtime/checked_build.py).

A checked build compiles the generated C with ``-D_XMPACC_CHECK``, which turns every
subscript of a distributed array into a checked one (runtime/include/xmpacc_check.h).
``xmpacc -fcheck`` does it at once and marks the executable as checked; without it the
executable carries what a checked run (``XMPACC_CHECK=1``) needs to build the checked
variant itself, which costs a few kilobytes and no compilation.

Each compiled XMP file carries its own generated C, however it is linked: the compile
that makes its code also assembles a *unit payload* (the host C, record and kernels, the
host compiler and its flags, the folder it ran in) into the ELF section ``.xmpacc_check``.
The section is not allocated (it is in the file, never in memory), so the linker copies
it, like ``.comment``, into ``ld -r`` objects and program.so: the sections of exactly the
files a link takes (an archive's members only when they are pulled in), in link order.

    a.o (xmpacc -c a.c)       .xmpacc_check: [payload of a.c]
    libb.a (ar of b.o, c.o)   members with their payloads
    program.so (a.o -lb)      .xmpacc_check: [a.c][b.c]      (c.o was not needed)

After linking program.so the link step reads that section back and writes the recipe:
compile every unit again with ``-D_XMPACC_CHECK`` (one command per unit, its own flags),
then the link command again, the checked objects in front and, in place of the link
items, everything but XMP code (objects of XMP files are left out, archives stay: their
XMP members are no longer pulled in, since the checked objects define their symbols).

    cc -r -nostdlib -fPIC ... -D_XMPACC_CHECK @DIR@/u0/a.c -x c @DIR@/u0/a.cu -o @DIR@/u0.o
    cc -c -fPIC ... -D_XMPACC_CHECK @DIR@/u1/b.c -o @DIR@/u1.o
    cc -shared ... -D_XMPACC_CHECK @DIR@/prog.runtime.c @DIR@/u0.o @DIR@/u1.o -L. -lb -o @OUT@
"""

from __future__ import annotations

import json
import os
import struct
import zlib
from dataclasses import asdict, dataclass
from pathlib import Path

from xmpacc import elf
from xmpacc.runtime.checked_build import CHECK_DEFINE, DIR, INCLUDE, MARKER, OUT, PREFIX, RECIPE

CHECK_SECTION = ".xmpacc_check"
# a payload in a section: magic, length, zlib-compressed JSON (compressed: tools that look
# for strings in program.so, CMake's compiler identification, must not find the C's)
_MAGIC = b"\0XMPACC-CHECK-1\0"
_LENGTH = struct.Struct("<I")


@dataclass(frozen=True)
class UnitPayload:
    """What compiling one XMP file again needs."""

    source: str                         # the user's file
    files: list[tuple[str, str]]        # (name, text): host C first, record, kernels
    kernels: str | None                 # the name of the kernel file, compiled as C
    cc: list[str]                       # the host compiler's words
    flags: list[str]                    # its flags, @INCLUDE@ for the runtime's headers
    cwd: str                            # where it ran (relative paths in flags)
    checked: bool                       # compiled with -D_XMPACC_CHECK already


def portable(args: list[str], include_dir: str) -> list[str]:
    """``args`` with the runtime's header folder (and files beside it) as @INCLUDE@."""
    runtime_dir = os.path.dirname(include_dir) + os.sep
    return [INCLUDE if a == include_dir else INCLUDE + "/../" + a[len(runtime_dir):]
            if a.startswith(runtime_dir) else a for a in args if a != CHECK_DEFINE]


def embed(unit: UnitPayload, directory: str, stem: str, header: bool = False) -> str:
    """Write the payload and a file that puts it into ``.xmpacc_check``: an assembler file
    (an input of a link) or, with ``header``, a C header of one top-level asm statement
    (``-include`` it: the object stays a plain ``cc -c`` one, whose symbol table lets the
    linker name the source file in its messages, which ``cc -r`` output does not)."""
    data = zlib.compress(json.dumps(asdict(unit)).encode())
    blob = Path(directory) / f"{stem}.check"
    blob.write_bytes(_MAGIC + _LENGTH.pack(len(data)) + data)
    quoted = str(blob).replace("\\", "\\\\").replace('"', '\\"')
    lines = [f'.pushsection {CHECK_SECTION},""', f'.incbin "{quoted}"', ".popsection"]
    if header:
        path = Path(directory) / f"{stem}.check.h"
        # a C string per line: json.dumps escapes as C does for these characters
        text = "__asm__(\n" + "".join("  " + json.dumps(line + "\n") + "\n" for line in lines) + ");\n"
    else:
        path = Path(directory) / f"{stem}.check.s"
        text = "".join(f"\t{line}\n" for line in lines) + '\t.section .note.GNU-stack,"",@progbits\n'
    path.write_text(text)
    return str(path)


def payloads(section: bytes) -> list[UnitPayload]:
    """The payloads in a ``.xmpacc_check`` section, in order."""
    found, at = [], 0
    while True:
        at = section.find(_MAGIC, at)
        if at < 0:
            return found
        start = at + len(_MAGIC) + _LENGTH.size
        size, = _LENGTH.unpack_from(section, at + len(_MAGIC))
        fields = json.loads(zlib.decompress(section[start:start + size]))
        fields["files"] = [tuple(f) for f in fields["files"]]
        found.append(UnitPayload(**fields))
        at = start + size


def units_in(path: str) -> list[UnitPayload]:
    """The payloads of the XMP files linked into ``path`` (an object or program.so)."""
    section = elf.section_bytes(Path(path).read_bytes(), CHECK_SECTION)
    return payloads(section) if section else []


def is_xmp_object(item: str, inputs: elf.Inputs) -> bool:
    """Is the link item an object (not an archive) with XMP files in it?  (``inputs``: the
    link's files, already read for the MPI probe.)"""
    data = inputs.read(item)
    return data is not None and data.startswith(elf.ELF_MAGIC) and \
        elf.section_bytes(data, CHECK_SECTION) is not None


def unit_object(k: int) -> str:
    """The checked object of unit ``k`` of a recipe."""
    return f"{DIR}/u{k}.o"


def _compile(k: int, unit: UnitPayload) -> dict[str, object]:
    """The command that compiles unit ``k`` with checks, as objects.py compiled it."""
    host = f"{DIR}/u{k}/{unit.files[0][0]}"
    if unit.kernels is None:
        argv = [*unit.cc, "-c", *unit.flags, CHECK_DEFINE, host, "-o", unit_object(k)]
    else:
        argv = [*unit.cc, "-r", "-nostdlib", *unit.flags, CHECK_DEFINE, host, "-x", "c",
                f"{DIR}/u{k}/{unit.kernels}", "-o", unit_object(k)]
    return {"argv": argv, "cwd": unit.cwd}


def recipe(units: list[UnitPayload], link: list[str], glue: tuple[str, str]) -> dict[str, bytes]:
    """The zip entries (``check/``) from which a checked run builds the checked variant:
    ``link`` is the link command of the checked objects (unit_object), with @DIR@/@OUT@."""
    files = {glue[0]: glue[1]}
    for k, unit in enumerate(units):
        files.update({f"u{k}/{name}": text for name, text in unit.files})
    commands = [_compile(k, u) for k, u in enumerate(units)] + [{"argv": link, "cwd": os.getcwd()}]
    out = {PREFIX + RECIPE: json.dumps({"files": sorted(files), "commands": commands}).encode()}
    out.update({PREFIX + name: text.encode("utf-8", "surrogateescape") for name, text in files.items()})
    return out


def sources(entries: dict[str, bytes]) -> dict[str, bytes]:
    """The recipe's entries as runtime/checked_build.py reads them (without ``check/``)."""
    return {name[len(PREFIX):]: data for name, data in entries.items()}


def marker() -> dict[str, bytes]:
    """The zip entries of an executable built with -fcheck."""
    return {MARKER: b"compiled with -D_XMPACC_CHECK\n"}


__all__ = ["CHECK_DEFINE", "OUT", "UnitPayload", "embed", "is_xmp_object", "marker", "portable",
           "recipe", "sources", "unit_object", "units_in"]
