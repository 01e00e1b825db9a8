"""Just enough of ELF and ar to read what the link step needs from the user's inputs.

The link step asks two questions of objects, archives and the linked program.so:

- the bytes of a named section (the checked-build payload of XMP files, ``checked.py``);
- the symbols an object uses without defining them (does it call MPI? ``mpi_flags.py``).

Both formats are read in Python (no readelf, nm or ar needed): ELF32/ELF64 of either byte
order, and ar archives in the GNU/SysV layout (``/`` and ``//`` tables) and the BSD one
(``#1/LEN`` names).  Files that are neither yield nothing: a linker script named
``libfoo.so`` or a thin archive is simply not looked into.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ELF_MAGIC = b"\x7fELF"
AR_MAGIC = b"!<arch>\n"
SHT_SYMTAB = 2
SHN_UNDEF = 0


@dataclass(frozen=True)
class Section:
    name: str
    kind: int       # sh_type
    offset: int
    size: int
    link: int       # sh_link: the string table of a symbol table
    entsize: int


class _Header:
    """The fields of an ELF header that locate its sections."""

    def __init__(self, data: bytes) -> None:
        self.wide = data[4] == 2                       # ELFCLASS64
        self.order = "<" if data[5] == 1 else ">"      # ELFDATA2LSB
        if self.wide:
            self.shoff, = struct.unpack_from(self.order + "Q", data, 0x28)
            self.shentsize, self.shnum, self.shstrndx = struct.unpack_from(self.order + "HHH", data, 0x3A)
        else:
            self.shoff, = struct.unpack_from(self.order + "I", data, 0x20)
            self.shentsize, self.shnum, self.shstrndx = struct.unpack_from(self.order + "HHH", data, 0x2E)

    def section(self, data: bytes, i: int) -> tuple[int, int, int, int, int, int]:
        """(name, type, offset, size, link, entsize) of section header ``i``."""
        at = self.shoff + i * self.shentsize
        if self.wide:
            name, kind, _flags, _addr, offset, size, link, _info, _align, entsize = \
                struct.unpack_from(self.order + "IIQQQQIIQQ", data, at)
        else:
            name, kind, _flags, _addr, offset, size, link, _info, _align, entsize = \
                struct.unpack_from(self.order + "IIIIIIIIII", data, at)
        return name, kind, offset, size, link, entsize


def _cstr(data: bytes, at: int) -> str:
    end = data.find(b"\0", at)
    return data[at:end if end >= 0 else len(data)].decode("utf-8", "replace")


def sections(data: bytes) -> list[Section]:
    """The sections of an ELF file ([] for anything else or a damaged file)."""
    if not data.startswith(ELF_MAGIC) or len(data) < 0x40:
        return []
    try:
        head = _Header(data)
        raw = [head.section(data, i) for i in range(head.shnum)]
        names = raw[head.shstrndx][2]
        return [Section(_cstr(data, names + n), kind, offset, size, link, entsize)
                for n, kind, offset, size, link, entsize in raw]
    except (struct.error, IndexError):
        return []


class Inputs:
    """The bytes of a link's input files, each file read at most once: the MPI probe and
    the checked build both look into the same objects and archives."""

    def __init__(self) -> None:
        self._data: dict[str, bytes | None] = {}

    def read(self, path: str) -> bytes | None:
        """The file's bytes, None when it cannot be read (the linker says why)."""
        if path not in self._data:
            try:
                self._data[path] = Path(path).read_bytes()
            except OSError:
                self._data[path] = None
        return self._data[path]


def section_bytes(data: bytes, name: str) -> bytes | None:
    """The contents of section ``name`` (None when the file has no such section)."""
    for s in sections(data):
        if s.name == name:
            return data[s.offset:s.offset + s.size]
    return None


def undefined_symbols(data: bytes) -> set[str]:
    """Names the object's symbol table uses but does not define."""
    found: set[str] = set()
    secs = sections(data)
    if not secs:
        return found
    head = _Header(data)
    for s in secs:
        if s.kind != SHT_SYMTAB or not s.entsize or s.link >= len(secs):
            continue
        strtab = secs[s.link].offset
        for at in range(s.offset + s.entsize, s.offset + s.size, s.entsize):   # entry 0 is null
            if head.wide:
                name, _info, _other, shndx = struct.unpack_from(head.order + "IBBH", data, at)
            else:
                name, shndx = struct.unpack_from(head.order + "I", data, at)[0], \
                    struct.unpack_from(head.order + "H", data, at + 14)[0]
            if shndx == SHN_UNDEF and name:
                found.add(_cstr(data, strtab + name))
    return found


def archive_members(data: bytes) -> Iterator[tuple[str, bytes]]:
    """(name, bytes) of the members of an ar archive, in archive order, without its tables."""
    if not data.startswith(AR_MAGIC):
        return
    at, longnames = len(AR_MAGIC), b""
    while at + 60 <= len(data):
        raw_name = data[at:at + 16].decode("ascii", "replace").rstrip()
        try:
            size = int(data[at + 48:at + 58].decode("ascii").strip())
        except ValueError:
            return
        body = data[at + 60:at + 60 + size]
        at += 60 + size + (size & 1)
        if raw_name in ("/", "/SYM64/", "__.SYMDEF", "__.SYMDEF SORTED"):
            continue
        if raw_name == "//":
            longnames = body
            continue
        if raw_name.startswith("#1/"):        # BSD: the name is the start of the body
            n = int(raw_name[3:])
            yield body[:n].rstrip(b"\0").decode("utf-8", "replace"), body[n:]
        elif raw_name.startswith("/") and raw_name[1:].isdigit():
            yield _cstr(longnames.replace(b"/\n", b"\0"), int(raw_name[1:])), body
        else:
            yield raw_name.rstrip("/"), body


def objects_in(data: bytes) -> Iterator[bytes]:
    """The ELF objects of an input file: the file itself, or an archive's members."""
    if data.startswith(AR_MAGIC):
        for _name, body in archive_members(data):
            if body.startswith(ELF_MAGIC):
                yield body
    elif data.startswith(ELF_MAGIC):
        yield data
