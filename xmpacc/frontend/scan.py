"""Which C files need xmpacc's translation: those with ``#pragma xmp`` or ``#pragma acc``
lines (OpenACC, XcalableACC: cc would ignore them) or array sections (``a[0:n] = ...``,
which plain C does not know), in the file itself or in a user header it includes (a header
may declare distributed arrays that the file only uses: their subscripts must be
rewritten).  A file that includes openacc.h is translated too: its calls of the OpenACC
library get their lines, and the program its device (passes/common/openacc_calls.py).  So is
a file that defines ``void main``: the runtime calls ``int main``, and only the translation
gives it one (passes/entry/entry.py), so that the program exits with 0 as Omni's does;
compiled as it is, its status would be whatever the return register held.  Files without
any of these are compiled by the host compiler as they are.

The includes are followed textually, as cpp would find them (the file's folder for
``"..."``, then ``-iquote``, ``-I``, ``-isystem`` and ``-idirafter`` folders); a header
inside ``#if 0`` counts too, which at worst translates a plain file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

from xmpacc.diagnostics import SourceLoc, XmpError
from xmpacc.frontend.coarrays import rewrite_coarrays
from xmpacc.frontend.sections import rewrite_sections

_PRAGMA = re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+(?:xmp|acc)\b", re.M)
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.M)
# Omni translates every file, so a file's '#ifdef _XCALABLEMP' code is compiled with the
# macro (and the XMP library declared): such a file is translated here too
_XMP_MACROS = re.compile(r"\b_XCALABLE(?:MP|ACC)\b")
_VOID_MAIN = re.compile(r"\bvoid\s+main\s*\(")   # in a comment too: at worst a plain file is translated


def _search_dirs(cpp_args: list[str]) -> tuple[list[str], list[str]]:
    """(folders for "..." only, folders for both) from -iquote/-I/-isystem/-idirafter."""
    quote: list[str] = []
    both: list[str] = []
    pending = None
    for arg in cpp_args:
        if pending is not None:
            (quote if pending == "-iquote" else both).append(arg)
            pending = None
        elif arg in ("-iquote", "-isystem", "-idirafter"):
            pending = arg
        elif arg.startswith("-I") and len(arg) > 2:
            both.append(arg[2:])
        elif arg.startswith(("-iquote", "-isystem", "-idirafter")):
            for opt in ("-iquote", "-isystem", "-idirafter"):
                if arg.startswith(opt):
                    (quote if opt == "-iquote" else both).append(arg[len(opt):])
                    break
    return quote, both


def _forced_includes(cpp_args: list[str]) -> list[str]:
    return [cpp_args[k + 1] for k, a in enumerate(cpp_args[:-1]) if a == "-include"]


def user_texts(path: str, cpp_args: list[str], text: str | None = None) -> Iterator[tuple[str, str]]:
    """(path, text) of the file (``text`` if given), then of each user header it includes
    (its -include files too), followed textually as cpp would find them; each file once.
    Unreadable files give ''.  build.py looks for <mpi.h> and xmp.h in them."""
    quote, both = _search_dirs(cpp_args)
    seen = {os.path.realpath(path)}
    todo = [(path, read_text(path) if text is None else text)]
    todo += [(p, "") for p in _forced_includes(cpp_args) if os.path.isfile(p)]
    while todo:
        current, text = todo.pop()
        text = text or read_text(current)
        yield current, text
        for kind, name in _INCLUDE.findall(text):
            dirs = ([os.path.dirname(current) or "."] + quote if kind == '"' else []) + both
            for d in dirs:
                candidate = os.path.join(d, name)
                if os.path.isfile(candidate):
                    if os.path.realpath(candidate) not in seen:
                        seen.add(os.path.realpath(candidate))
                        todo.append((candidate, ""))
                    break


def has_directives(path: str, cpp_args: list[str]) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            source = f.read()
    except OSError:
        raise XmpError(SourceLoc(path, 0, 0), "no such file") from None
    if _VOID_MAIN.search(source) or _XMP_MACROS.search(source):
        return True
    for _current, text in user_texts(path, cpp_args, source):
        # sections and coarrays need xmpacc even in a file without a directive
        if _PRAGMA.search(text) or rewrite_sections(text) != text or rewrite_coarrays(text) != text:
            return True
        if any(name.strip() == "openacc.h" for _kind, name in _INCLUDE.findall(text)):
            return True
    return False


def read_text(path: str) -> str:
    """The text of a C file, '' when it cannot be read (the compiler reading it says why)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""
