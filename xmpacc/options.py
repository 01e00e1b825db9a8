"""The command line of ``xmpacc``, read the way gcc reads its own.

    xmpacc [options] file.c|file.o|lib.a|lib.so|-lfoo ... [-o out]

Every argument lands in one of a few lists: preprocessor options (``cpp_args``; they also
reach ``#pragma xmp`` lines), dependency-file options (``dep_args``), options of the host C
compiler (``cflags``), and the linker's positional items (``link_items``: objects,
archives, libraries, ``-l``, ``-L``, ``-Wl,``), kept in command-line order because link
order means something (archives, and the order in which each file's start-up code runs).
An option xmpacc does not know goes to the host compiler with a warning, as ``mpicc``
does.  ``@file`` arguments are replaced by the arguments written in the file first.

Omni's ``xmpcc`` options are read too, so that a Makefile written for Omni builds
with only the compiler swapped: each is read as the xmpacc option it means (``-omp`` as
``-fopenmp``, ``--Wl-lm`` as ``-lm``), accepted (``-xacc``: XcalableACC is always on), or
ignored with a warning where it tunes a stage of Omni that xmpacc has not.
"""

from __future__ import annotations

import os
import re
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
# Omni's xmpcc options read as the xmpacc option of the same meaning
OMNI_ALIASES = {
    "-omp": "-fopenmp", "--openmp": "-fopenmp",
    "--verbose": "-v", "--dry": "--showme", "--tmp": "--keep", "--debug": "--keep",
    "--stop-pp": "--stop-after=preprocess", "--stop-frontend": "--stop-after=parse",
    "--stop-translator": "--stop-after=entry", "--stop-backend": "-S", "--stop-compile": "-c",
}
# Omni's options that change nothing here: XcalableACC and OpenACC are always on, and the
# GPU is the one each process gets at run time (NVRTC compiles the kernels for it)
_OMNI_ACCEPTED = ("-xacc", "--xcalableacc", "-acc", "--openacc")
_XACC_MACRO = "-D_XCALABLEACC=1"
_OMNI_ACCEPTED_VALUE = ("-xacc=", "--device=")
# Omni's options for stages and code generators that xmpacc has not: ignored, saying why
# (name, True when the name is a prefix, why)
_OMNI_IGNORED = (
    ("--Wf", True, "it is an option of Omni's front end (C to XcodeML), which xmpacc has not"),
    ("--Wx", True, "it is an option of Omni's XcodeML translator, which xmpacc has not"),
    ("--Wb", True, "it is an option of Omni's back end (XcodeML to C), which xmpacc has not"),
    ("--no-ldg", False, "xmpacc's kernels choose where to read through the read-only cache"),
    ("--default-veclen=", True, "xmpacc's kernels choose their own block size (vector_length on an "
                                "OpenACC construct still applies)"),
    ("--platform=", True, "xmpacc's kernels are CUDA (NVRTC) or run on the host backend"),
    ("--profile", False, "profile with XMPACC_PROFILE=1 at run time"),
    ("--scalasca", True, "profile with XMPACC_PROFILE=1 at run time"),
    ("--tlog", True, "profile with XMPACC_PROFILE=1 at run time"),
)
# Omni's pass-through options and where their options go here (the list they go to when
# they are not an option that goes elsewhere, such as -lm)
_OMNI_PASS_THROUGH = ("--Wp", "--Wn", "--Wl")
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
    check: bool = False           # -fcheck (xmpacc/checked.py)
    openmp: bool = False          # -fopenmp (Omni: -omp, --openmp): host C compiled and linked with it
    ignored: list[tuple[str, str]] = field(default_factory=list)   # (Omni's option, why it is ignored)

    @property
    def wants_deps(self) -> bool:
        return any(a in ("-MD", "-MMD") for a in self.dep_args)

    @property
    def front_end_cpp_args(self) -> list[str]:
        """The preprocessor options of the translation: with OpenMP, cpp defines _OPENMP and
        expands macros in ``#pragma omp`` lines, as it does for the host compiler."""
        return self.cpp_args + (["-fopenmp"] if self.openmp else [])


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
        arg = OMNI_ALIASES.get(arg, arg)
        if _omni_option(arg, args):
            continue
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
    elif arg in ("-fopenmp", "-fno-openmp"):
        args.openmp = arg == "-fopenmp"   # the Toolchain adds it to every compile and link
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
    elif arg == "-fcheck":
        args.check = True
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


def _omni_option(arg: str, args: Args) -> bool:
    """Omni's options that are not aliases of xmpacc's: True when ``arg`` was one."""
    if arg in _OMNI_ACCEPTED or arg.startswith(_OMNI_ACCEPTED_VALUE):
        if arg.endswith("="):
            raise UsageError(f"'{arg}' needs a value")
        if arg.startswith(("-xacc", "--xcalableacc")) and _XACC_MACRO not in args.cpp_args:
            args.cpp_args.append(_XACC_MACRO)   # Omni's macro of its XcalableACC mode
        return True
    for name, prefix, why in _OMNI_IGNORED:
        if arg == name or (prefix and arg.startswith(name)):
            if name == "--default-veclen=" and not arg[len(name):].isdigit():
                raise UsageError(f"'{arg}': the vector length must be a number")
            args.ignored.append((arg, why))
            return True
    if not arg.startswith(_OMNI_PASS_THROUGH):
        return False
    stage = arg[:4]
    default = {"--Wp": args.cpp_args, "--Wn": args.cflags, "--Wl": args.link_items}[stage]
    words = iter(omni_words(arg[4:]))
    for word in words:   # each goes where it goes on the command line, else to the stage's list
        if word in ("-fopenmp", "-fno-openmp"):
            args.openmp = word == "-fopenmp"
        elif _valued(word, words, args):
            pass
        elif word.startswith("-Wl,") or word in _LINK_FLAGS:
            args.link_items.append(word)
        else:
            default.append(word)   # type: ignore[arg-type]
    return True


def omni_words(text: str) -> list[str]:
    """The options of an Omni pass-through (``--Wn"-O3 -g"``, ``--Wl-lm,-lrt``): separated by
    spaces or commas, as Omni's driver splits them, except that a comma stays inside gcc's
    own lists (``-Wl,-rpath,/opt``) and where no option follows it (``-DLIST=1,2``)."""
    words: list[str] = []
    for word in text.split():
        words += [word] if word.startswith(("-Wl,", "-Wp,", "-Wa,")) else \
            [w for w in re.split(r",(?=-)", word) if w]
    return words
