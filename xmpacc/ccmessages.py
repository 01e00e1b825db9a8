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
from xmpacc.passes.entry import USER_MAIN
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
        undefined = _UNDEFINED.search(line)
        if undefined and undefined.group(1).startswith(ABI_PREFIX):
            out.append(_abi_message(line, undefined.group(1)))
            continue
        if undefined and any(g in line for g in glue):
            out.append(f"{linker}: undefined reference to `{_user_name(undefined.group(1))}'\n")
            continue
        duplicate = _MULTIPLE.search(line)
        if duplicate and duplicate.group(1).startswith(("_xmpacc_init_", "_xmpacc_loop_")):
            out.append(line)
            out.append("xmpacc: note: two XMP files of the same name in one program are not "
                       "supported yet (their start-up code and kernels are named after the file); "
                       "rename one\n")
            continue
        for generated in sorted(names, key=len, reverse=True):   # whole paths first
            line = line.replace(generated, names[generated])
        if undefined or duplicate:   # an aligned array's descriptor goes with the array
            line = _DESCRIPTOR.sub(r"\1", line)
        out.append(line.replace(USER_MAIN, "main"))
    return "".join(out)


def _user_name(symbol: str) -> str:
    return "main" if symbol == USER_MAIN else symbol
