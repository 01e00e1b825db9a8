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

from xmpacc.diagnostics import SourceLoc, XmpError
from xmpacc.frontend.coarrays import rewrite_coarrays
from xmpacc.frontend.sections import rewrite_sections

_PRAGMA = re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+(?:xmp|acc)\b", re.M)
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.M)
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


def has_directives(path: str, cpp_args: list[str]) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        raise XmpError(SourceLoc(path, 0, 0), "no such file") from None
    if _VOID_MAIN.search(text):
        return True
    quote, both = _search_dirs(cpp_args)
    seen = {os.path.realpath(path)}
    todo = [(path, text)] + [(p, "") for p in _forced_includes(cpp_args) if os.path.isfile(p)]
    while todo:
        current, text = todo.pop()
        if not text:
            text = read_text(current)
        # sections and coarrays need xmpacc even in a file without a directive
        if _PRAGMA.search(text) or rewrite_sections(text) != text or rewrite_coarrays(text) != text:
            return True
        for kind, name in _INCLUDE.findall(text):
            if name.strip() == "openacc.h":
                return True
            dirs = ([os.path.dirname(current) or "."] + quote if kind == '"' else []) + both
            for d in dirs:
                candidate = os.path.join(d, name)
                if os.path.isfile(candidate):
                    if os.path.realpath(candidate) not in seen:
                        seen.add(os.path.realpath(candidate))
                        todo.append((candidate, ""))
                    break
    return False


def read_text(path: str) -> str:
    """The text of a C file, '' when it cannot be read (the compiler reading it says why)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""
