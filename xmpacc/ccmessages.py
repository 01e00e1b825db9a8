"""The host compiler's and linker's messages, told in the user's terms.

xmpacc hands generated files to ``cc``; what cc and ld say about them must name the
user's files and functions, as if the user had compiled their program with cc:

    prog.host.c:(.text+0x1f): undefined reference to `foo'     ->  hello.c:(.text+0x1f): ...
    hello.c: In function '_xmpacc_user_main':                   ->  hello.c: In function 'main':
    a.c:(.text+0x9): undefined reference to `_xmpacc_a_u'       ->  a.c:(.text+0x9): ... `u'
    hello.c: In function '_xmpacc_init_hello_c':                (dropped: start-up code)
    /tmp/cc1.o: in function `_xmpacc_entry':                    (dropped: the start-up glue)
    prog.runtime.c:(.text+0x59): undefined reference to `main'  ->  /usr/bin/ld: undefined reference to `main'
    a.o:(.data.rel+0x0): undefined reference to `_xmpacc_abi_v0_2e1_2e0__5e1f...'
        ->  xmpacc: error: a.o was compiled by xmpacc 0.1.0 (runtime contract 5e1f...); this is ...

``ABI_PREFIX`` names are how a linked object says which xmpacc compiled it (see
``abi_symbol``): the glue of the linking xmpacc defines its own name only.
"""

from __future__ import annotations

import re

from xmpacc import __version__
from xmpacc.context import USER_MAIN
from xmpacc.diagnostics import SourceLoc, source_line
from xmpacc.runtime.contract import contract_id

ABI_PREFIX = "_xmpacc_abi_v"
_QUOTED = r"[`'‘]([^'’`]+)['’]"
_IN_GLUE_FN = re.compile(r"^(.*?): (?:.*: )?in function " + _QUOTED + r":$")
_IN_FN = re.compile(r"^(.*): In function " + _QUOTED + ":$")
_UNDEFINED = re.compile(r"undefined reference to " + _QUOTED)
_MULTIPLE = re.compile(r"multiple definition of " + _QUOTED)
_LINKER = re.compile(r"^(\S*ld(?:\.\w+)?): ")
_DESCRIPTOR = re.compile(r"(?<![\w])_xmpacc_a_(\w+)")
_GLUE_FUNCTIONS = ("_xmpacc_entry", "_xmpacc_register_library")


def abi_symbol(version: str = __version__, contract: str | None = None) -> str:
    """``_xmpacc_abi_v<version>__<contract>``: each character of the version that cannot be
    part of a C name is written ``_`` + two hex digits, so the name can be read back."""
    enc = "".join(c if c.isalnum() else f"_{ord(c):02x}" for c in version)
    return f"{ABI_PREFIX}{enc}__{contract or contract_id()}"


def _read_abi(symbol: str) -> tuple[str, str]:
    body = symbol[len(ABI_PREFIX):]
    enc, _, contract = body.partition("__")
    version = re.sub(r"_([0-9a-f]{2})", lambda m: chr(int(m.group(1), 16)), enc)
    return version, contract


def _abi_message(line: str, symbol: str) -> str:
    version, contract = _read_abi(symbol)
    where = _LINKER.sub("", line).split(":", 1)[0].strip() or "an object"
    return (f"xmpacc: error: {where} was compiled by xmpacc {version} (runtime contract {contract}); "
            f"this is xmpacc {__version__} (runtime contract {contract_id()}): compile it again "
            "with this xmpacc\n")


def _linker_name(line: str) -> str:
    m = _LINKER.match(line)
    return m.group(1) if m else "ld"


def rewrite(text: str, names: dict[str, str], glue: tuple[str, ...] = ()) -> str:
    """``names``: generated file name (or path) -> the user's source; ``glue``: names of
    generated files that hold no user code (their context lines are dropped)."""
    out: list[str] = []
    linker = "ld"
    for line in text.splitlines(keepends=True):
        m = _IN_GLUE_FN.match(line.rstrip("\n"))
        if m and m.group(2) in _GLUE_FUNCTIONS:
            linker = _linker_name(line)
            continue
        m = _IN_FN.match(line.rstrip("\n"))
        if m and m.group(2).startswith("_xmpacc_init_"):
            continue   # the file's start-up code: its messages point at the directives
        out += _link_line(line, linker, glue) or [_in_user_terms(line, names)]
    return "".join(_directive_columns(out))


def _link_line(line: str, linker: str, glue: tuple[str, ...]) -> list[str] | None:
    """A linker message about generated names, rewritten (None: not one)."""
    undefined = _UNDEFINED.search(line)
    if undefined and undefined.group(1).startswith(ABI_PREFIX):
        return [_abi_message(line, undefined.group(1))]
    if undefined and any(g in line for g in glue):
        return [f"{linker}: undefined reference to `{_user_name(undefined.group(1))}'\n"]
    duplicate = _MULTIPLE.search(line)
    if duplicate and duplicate.group(1).startswith(("_xmpacc_init_", "_xmpacc_loop_")):
        return [line, "xmpacc: note: two XMP files of the same name in one program are not "
                      "supported yet (their start-up code and kernels are named after the file); "
                      "rename one\n"]
    return None


def _in_user_terms(line: str, names: dict[str, str]) -> str:
    for generated in sorted(names, key=len, reverse=True):   # whole paths first
        line = line.replace(generated, names[generated])
    if _UNDEFINED.search(line) or _MULTIPLE.search(line):
        line = _DESCRIPTOR.sub(r"\1", line)   # an aligned array's descriptor: the array
    return line.replace(USER_MAIN, "main")


def _user_name(symbol: str) -> str:
    return "main" if symbol == USER_MAIN else symbol


_DIAG = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): (?P<rest>.*)$")
_CARET = re.compile(r"^(\s*\|) ?\s*\^[~^]*\s*$")
_PRAGMA_HEAD = re.compile(r"^\s*#\s*pragma\s+xmp\s+")


def _directive_columns(lines: list[str]) -> list[str]:
    """A message about code generated for a directive has the directive's line (#line
    markers) but a column of the generated statement, often past the end of the line:
    point it at the directive instead, and move gcc's caret with it."""
    out: list[str] = []
    column = None
    for line in lines:
        m = _DIAG.match(line.rstrip("\n"))
        caret = _CARET.match(line.rstrip("\n"))
        if m:
            column = _directive_column(m.group("file"), int(m.group("line")), int(m.group("col")))
            if column is not None:
                line = f"{m.group('file')}:{m.group('line')}:{column}: {m.group('rest')}\n"
        elif caret and column is not None:
            line = f"{caret.group(1)} {' ' * (column - 1)}^\n"
            column = None
        out.append(line)
    return out


def _directive_column(path: str, line: int, col: int) -> int | None:
    text = source_line(SourceLoc(path, line, col))
    if text is None or col <= len(text):
        return None
    head = _PRAGMA_HEAD.match(text)
    return len(head.group(0)) + 1 if head else None
