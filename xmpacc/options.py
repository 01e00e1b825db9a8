"""The command line of ``xmpacc``, read the way gcc reads its own.

    xmpacc [options] file.c|file.o|lib.a|lib.so|-lfoo ... [-o out]

Every argument lands in one of a few lists: preprocessor options (``cpp_args``; they also
reach ``#pragma xmp`` lines), dependency-file options (``dep_args``), options of the host C
compiler (``cflags``), and the linker's positional items (``link_items``: objects,
archives, libraries, ``-l``, ``-L``, ``-Wl,``), kept in command-line order because link
order means something (archives, and the order in which each file's start-up code runs).
An option xmpacc does not know goes to the host compiler with a warning, as ``mpicc``
does.  ``@file`` arguments are replaced by the arguments written in the file first.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from xmpacc.driver import STAGES


class UsageError(Exception):
    pass


# options whose value may be the next argument (and, for the first set, attached too)
_CPP_VALUE = ("-D", "-U", "-I")
_CPP_VALUE_SEPARATE = ("-include", "-imacros", "-isystem", "-iquote", "-idirafter", "-iprefix",
                       "-iwithprefix", "-iwithprefixbefore", "-isysroot", "-imultilib",
                       "-Xpreprocessor")
_DEP_VALUE = ("-MF", "-MT", "-MQ")
_DEP_FLAGS = ("-MD", "-MMD", "-MP", "-MG")
_LINK_VALUE = ("-l", "-L")
_LINK_VALUE_SEPARATE = ("-Xlinker", "-u", "-T", "-z")
_CC_VALUE_SEPARATE = ("--param", "-Xassembler", "-aux-info")
_LINK_FLAGS = ("-rdynamic", "-s", "-static-libgcc", "-nostdlib", "-nodefaultlibs",
               "-nostartfiles")
_CC_FLAGS = ("-w", "-pedantic", "-pedantic-errors", "-pipe", "-ansi", "-pthread", "-p", "-pg",
             "--coverage", "-fsyntax-only", "-C", "-CC", "-P", "-H", "-trigraphs",
             "-undef", "-nostdinc", "-traditional-cpp")
_CC_PREFIXES = ("-O", "-g", "-f", "-m", "-W", "-std=", "--std=", "-specs=", "--sysroot=")
# answered by the host compiler itself (build systems ask these)
HOST_QUERIES = ("-dumpversion", "-dumpfullversion", "-dumpmachine", "-print-")
SHOWME = ("--showme", "-show", "--showme:compile", "--showme:link", "--showme:command",
          "--showme:version")
_SUFFIXES_LINK = (".o", ".a", ".so", ".lo")


@dataclass
class Args:
    sources: list[str] = field(default_factory=list)     # C files, in order
    source_lang: dict[str, bool] = field(default_factory=dict)  # path -> given after '-x c'
    link_items: list[str | int] = field(default_factory=list)   # int: index into sources
    output: str | None = None
    mode: str = "link"            # link, shared, compile (-c), preprocess (-E, -M, -MM), sources (-S)
    cpp_args: list[str] = field(default_factory=list)
    dep_args: list[str] = field(default_factory=list)
    cflags: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    warnings_as_errors: bool = False
    no_warnings: bool = False
    keep: bool = False
    verbose: bool = False
    stop_after: str | None = None
    info: bool = False
    showme: str | None = None     # one of SHOWME

    @property
    def wants_deps(self) -> bool:
        return any(a in ("-MD", "-MMD") for a in self.dep_args)


def expand_response_files(argv: list[str], depth: int = 0) -> list[str]:
    """Replace each ``@file`` by the arguments in the file (gcc's rules: whitespace
    separates, quotes group, backslash escapes; a file that cannot be read stays as it is)."""
    out: list[str] = []
    for arg in argv:
        if not arg.startswith("@") or len(arg) == 1 or depth > 16:
            out.append(arg)
            continue
        try:
            with open(arg[1:], encoding="utf-8", errors="surrogateescape") as f:
                text = f.read()
        except OSError:
            out.append(arg)
            continue
        out += expand_response_files(split_response(text), depth + 1)
    return out


def split_response(text: str) -> list[str]:
    """Split a response file like libiberty's buildargv."""
    args: list[str] = []
    word: list[str] | None = None
    quote = ""
    chars = iter(text)
    for c in chars:
        if quote:
            if c == quote:
                quote = ""
            elif c == "\\":
                word.append(next(chars, ""))  # type: ignore[union-attr]
            else:
                word.append(c)  # type: ignore[union-attr]
            continue
        if c.isspace():
            if word is not None:
                args.append("".join(word))
                word = None
            continue
        word = [] if word is None else word
        if c in "'\"":
            quote = c
        elif c == "\\":
            word.append(next(chars, ""))
        else:
            word.append(c)
    if word is not None:
        args.append("".join(word))
    return args


def parse_args(argv: list[str]) -> Args:
    args = Args()
    it = iter(argv)
    lang_c = False
    for arg in it:
        if arg in ("-x",) or (arg.startswith("-x") and len(arg) > 2):
            lang = arg[2:] if len(arg) > 2 else _value(arg, it)
            if lang not in ("c", "none"):
                raise UsageError(f"'-x {lang}': xmpacc compiles C only")
            lang_c = lang == "c"
        elif arg == "-o" or (arg.startswith("-o") and len(arg) > 2):
            args.output = arg[2:] if len(arg) > 2 else _value(arg, it)
        elif not arg.startswith("-") or arg == "-":
            _input(arg, args, lang_c)
        else:
            _option(arg, it, args)
    if not args.sources and not any(isinstance(i, str) and not i.startswith("-") for i in args.link_items) \
            and not args.stop_after and not args.showme:
        raise UsageError("no input files")
    if args.output is not None and args.mode in ("compile", "preprocess") \
            and len(args.sources) > 1:
        raise UsageError("cannot specify '-o' with '-c', '-S' or '-E' with multiple files")
    return args


def _value(opt: str, it: object) -> str:
    value = next(it, None)  # type: ignore[call-overload]
    if value is None:
        raise UsageError(f"missing argument to '{opt}'")
    return value


def _input(arg: str, args: Args, lang_c: bool) -> None:
    if arg == "-":
        raise UsageError("reading the program from standard input is not supported yet")
    if lang_c or arg.endswith(".c"):
        args.source_lang[arg] = lang_c and not arg.endswith(".c")
        args.link_items.append(len(args.sources))
        args.sources.append(arg)
    elif arg.endswith(_SUFFIXES_LINK) or ".so." in os.path.basename(arg):
        args.link_items.append(arg)
    else:
        raise UsageError(f"'{arg}': input files must be .c, .o, .a or .so (or C after '-x c')")


# -M and -MM print dependencies instead of the preprocessed text: the preprocessor's job
_MODES = {"-c": "compile", "-E": "preprocess", "-M": "preprocess", "-MM": "preprocess", "-S": "sources",
          "-shared": "shared"}


def _option(arg: str, it: object, args: Args) -> None:
    if _valued(arg, it, args):
        return
    if arg in _MODES:
        args.mode = _MODES[arg] if arg != "-shared" or args.mode == "link" else args.mode
        if arg in ("-M", "-MM"):
            args.dep_args.append(arg)
    elif arg in _DEP_FLAGS:
        args.dep_args.append(arg)
    elif _xmpacc_option(arg, args):
        pass
    elif arg.startswith("-Wl,") or arg in _LINK_FLAGS:
        args.link_items.append(arg)
    elif arg.startswith("-Wp,"):
        args.cpp_args.append(arg)
    elif arg == "-Werror":
        args.warnings_as_errors = True
        args.cflags.append(arg)
    elif arg == "-w":
        args.no_warnings = True
        args.cflags.append(arg)
    elif arg.startswith(_CC_PREFIXES) or arg in _CC_FLAGS or arg.startswith("-Wa,"):
        args.cflags.append(arg)
    elif arg in ("-static", "-static-pie", "-pie"):
        raise UsageError(f"'{arg}': an xmpacc program is a shared object loaded by the Python "
                         "runtime, so it cannot be linked statically")
    else:
        args.unknown.append(arg)
        args.cflags.append(arg)


def _valued(arg: str, it: object, args: Args) -> bool:
    """Options that take a value: the value goes where the option goes."""
    for names, joinable, target in ((_CPP_VALUE, True, args.cpp_args),
                                    (_CPP_VALUE_SEPARATE, False, args.cpp_args),
                                    (_DEP_VALUE, True, args.dep_args),
                                    (_LINK_VALUE, True, args.link_items),
                                    (_LINK_VALUE_SEPARATE, False, args.link_items),
                                    (_CC_VALUE_SEPARATE, False, args.cflags)):
        if arg in names:
            value = _value(arg, it)
            target += [arg + value] if joinable else [arg, value]   # type: ignore[operator]
            return True
        if joinable and any(arg.startswith(n) and len(arg) > len(n) for n in names):
            target.append(arg)   # type: ignore[arg-type]
            return True
    if arg.startswith(("-include", "-isystem", "-iquote", "-idirafter")):
        args.cpp_args.append(arg)   # attached value (-isystem/opt/inc)
        return True
    return False


def _xmpacc_option(arg: str, args: Args) -> bool:
    """xmpacc's own options (see ``xmpacc --help``)."""
    if arg == "--keep":
        args.keep = True
    elif arg == "-v":
        args.verbose = True
    elif arg == "--info":
        args.info = True
    elif arg in SHOWME:
        args.showme = arg
    elif arg.startswith("--stop-after="):
        stage = arg.split("=", 1)[1]
        if stage not in STAGES[:-1]:
            raise UsageError(f"unknown stage '{stage}' (one of: {', '.join(STAGES[:-1])})")
        args.stop_after = stage
    else:
        return False
    return True
