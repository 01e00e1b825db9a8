"""The ``xmpacc`` command: a C compiler driver for XcalableMP programs.

    xmpacc [options] file.c|file.o|lib.a|-lfoo ... [-o prog]   compile and link a program
    xmpacc -c file.c [-o file.o]                                compile one file
    xmpacc -E file.c                                            preprocess
    xmpacc -shared file.c ... -o libx.so                        a library for xmpacc programs

Files with ``#pragma xmp`` directives (in themselves or in their headers) are translated;
other C files go to the host compiler as they are.  options.py reads the command line,
objects.py does the one-file steps, build.py links.  See ``xmpacc --help``.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys

from xmpacc import __version__, deepstack
from xmpacc.build import (
    PROGRAM_LINK_FLAGS,
    BuildError,
    Generated,
    LinkItem,
    Plain,
    Toolchain,
    build_library,
    build_program,
    python_for_executable,
)
from xmpacc.context import Context, Unit
from xmpacc.diagnostics import InternalError, XmpError, XmpErrors, print_errors
from xmpacc.driver import STAGES, Options, run_guarded, translate
from xmpacc.emit import glue_c, host_c, library_c, record_h
from xmpacc.emit_cu import kernels_cu
from xmpacc.frontend.rawbytes import escape_for_c
from xmpacc.frontend.scan import has_directives
from xmpacc.hostcc import RECURSION_GUARD, host_cc
from xmpacc.info import render as render_info
from xmpacc.objects import compile_plain, compile_xmp, dep_defaults, object_name, preprocess_to, write_deps
from xmpacc.options import HOST_QUERIES, Args, UsageError, expand_response_files, parse_args

USAGE = f"""\
usage: xmpacc [options] file.c|file.o|lib.a|-lfoo ... [-o prog]

Compiles C programs with XcalableMP / XcalableMP-ACC directives into an executable that
runs under mpirun (one node per MPI process).  Used like cc: one command, or -c per file
and a link of the objects (make, CMake).

options:
  -o FILE             the output (default a.out; with -c: file.o), written atomically
  -c                  compile each file into an object (ELF, for ar, nm, ld -r and the link)
  -E                  preprocess to stdout (or -o FILE), as cc -E does
  -shared             a shared library of XMP code for other xmpacc programs
  -D NAME[=VAL], -U NAME, -I DIR, -include FILE, -isystem DIR, -iquote DIR
                      preprocessor options (they also apply inside #pragma xmp lines)
  -MD, -MMD, -MF FILE, -MT TARGET, -MQ TARGET, -MP, -M, -MM
                      dependency files, as gcc writes them
  -x c                the following files are C whatever their names
  -O*, -g*, -f*, -m*, -W*, -std=*, -w, -pedantic
                      passed to the host C compiler ($CC, default cc); -Werror also turns
                      xmpacc's own warnings into errors, -w silences them
  -fopenmp            OpenMP inside each node: host C compiled and linked with -fopenmp;
                      a #pragma omp line next to a loop directive splits the node's
                      iterations over its threads
  -l LIB, -L DIR, -Wl,..., -Xlinker ARG
                      passed to the linker, in command-line order
  @FILE               read more arguments from FILE
  -S                  stop after generating the host C (FILE.host.c, FILE.record.h,
                      FILE.runtime.c, FILE.cu), written next to the output (without -o:
                      named after the first source file, in the current folder)
  --keep              build the executable and keep the generated sources next to it
  --stop-after=STAGE  stop after a compiler stage and print its result; one of
                      {", ".join(STAGES[:-1])}
  -fcheck             a checked executable: every access of a distributed array (host
                      code and kernels) must be owned or in a shadow, and device copies
                      must be in sync; the first violation stops the job at its line
                      (XMPACC_CHECK=1 at run time does the same for any executable).
                      With -c: the object's accesses are checked; linking with -fcheck
                      checks every XMP file of the program, also those of objects and
                      archives compiled without it
  --info              say on stderr, for each directive, what was generated: how a loop
                      is distributed, its kernel and thread mapping, how each variable
                      reaches the GPU, bytes moved by reflect and replicate_sync
  -v                  print every command xmpacc runs
  --showme, -show     print the commands xmpacc would run, without running the host
                      compiler (--showme:compile, --showme:link, --showme:command too)
  --version           print the version and exit
  -h, --help          print this help and exit

Omni's xmpcc options are accepted too: see docs/xmpacc.md.
Other options go to the host compiler, with a warning.
environment: XMPACC_CC or CC (host C compiler; a CC naming xmpacc is skipped),
XMPACC_PYTHON (the Python that runs the executables; also read when they start),
XMPACC_MPICC (the mpicc of the MPI for files that include <mpi.h>; default: mpi4py's);
at run time XMPACC_CHECK=1 runs the checked variant (see -fcheck), built on first use
and kept in XMPACC_CACHE_DIR (default ~/.cache/xmpacc).
"""


class Warnings:
    """xmpacc's own warnings: printed, silenced by -w, errors with -Werror."""

    def __init__(self, args: Args) -> None:
        self.args = args
        self.failed = False

    def report(self, warnings: list[XmpError]) -> None:
        if self.args.no_warnings or not warnings:
            return
        if self.args.warnings_as_errors:
            print_errors([XmpError(w.loc, w.message + " [-Werror]") for w in warnings])
            self.failed = True
        else:
            print_errors(warnings)

    def option(self, text: str) -> None:
        if self.args.no_warnings:
            return
        kind = "error" if self.args.warnings_as_errors else "warning"
        print(f"xmpacc: {kind}: {text}" + (" [-Werror]" if kind == "error" else ""), file=sys.stderr)
        self.failed |= self.args.warnings_as_errors


def _toolchain(args: Args) -> Toolchain:
    return Toolchain(cc=host_cc(), cflags=args.cflags, cppflags=args.cpp_args,
                     verbose=args.verbose, showme=args.showme is not None, checked=args.check,
                     openmp=args.openmp)


class OutputError(Exception):
    """The output cannot be written where -o says."""


def check_output(path: str) -> None:
    """A one-line error, before any work, when ``path`` cannot be written."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise OutputError(f"cannot write '{path}': it is a directory")
    if not os.path.isdir(folder):
        raise OutputError(f"cannot write '{path}': no such directory '{os.path.dirname(path)}'")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"cannot write '{path}': directory '{os.path.dirname(path) or '.'}' "
                         "is not writable")


Units = dict[str, tuple[Unit, Context]]   # source path -> its translation


def translate_all(args: Args, xmp: list[str], warnings: Warnings) -> Units:
    """Translate every file with directives; all their mistakes are reported together."""
    options = Options(cc=host_cc(), cpp_args=args.front_end_cpp_args,
                      verbose=args.verbose or args.showme is not None, stop_after=args.stop_after)
    units: Units = {}
    errors: list[XmpError] = []
    for path in xmp:
        try:
            units[path] = translate(path, options)
        except XmpErrors as e:
            errors += e.errors
        except XmpError as e:
            errors.append(e)
    if errors:
        raise XmpErrors(errors)
    for _unit, ctx in units.values():
        warnings.report(ctx.diags.warnings)
    if args.info:
        for _unit, ctx in units.values():
            sys.stderr.writelines(line + "\n" for line in render_info(ctx.info))
    return units


def generate(unit: Unit, ctx: Context, base: str, host_name: str) -> Generated:
    """The generated files of one unit: BASE.record.h, BASE.cu and the host C."""
    record = f"{base}.record.h"
    cu_name = f"{base}.cu"
    cu = kernels_cu(unit, ctx, cu_name)
    return Generated(unit.path, (host_name, host_c(unit, ctx, record)), (record, record_h(unit, cu)),
                     (cu_name, cu) if cu else None)


def run(args: Args) -> int:
    warnings = Warnings(args)
    for opt in args.unknown:
        warnings.option(f"unknown option '{opt}' passed to the host compiler")
    for opt, why in args.ignored:
        warnings.option(f"Omni's option '{opt}' ignored: {why}")
    if warnings.failed:
        return 1
    tc = _toolchain(args)
    xmp = [p for p in args.sources if has_directives(p, args.cpp_args)]
    if args.mode == "preprocess":
        for p in args.sources:
            preprocess_to(tc, p, args.source_lang[p], p in xmp, args.dep_args, args.output)
        return 0
    if args.output is not None and args.mode != "sources":
        check_output(args.output)
    units = translate_all(args, xmp, warnings)
    if warnings.failed:
        return 1
    if args.stop_after:
        _show_stage(list(units.values()), args.stop_after)
        return 0
    if args.mode == "compile":
        _compile_each(args, tc, units)
    else:
        _link(args, tc, units)
    return 0


def _compile_each(args: Args, tc: Toolchain, units: Units) -> None:
    """-c: one object per source (and its dependency file with -MD/-MMD)."""
    for src in args.sources:
        out = args.output or object_name(src)
        check_output(out)
        if src in units:
            unit, ctx = units[src]
            stem = os.path.splitext(os.path.basename(out))[0]
            host = os.path.basename(src) if src.endswith(".c") else os.path.basename(src) + ".c"
            keep = os.path.dirname(os.path.abspath(out)) if args.keep else None
            compile_xmp(tc, generate(unit, ctx, stem, host), out, keep)
            if args.wants_deps:
                write_deps(tc, src, args.source_lang[src], True, args.dep_args,
                           *dep_defaults(src, args.output, "compile"))
        else:
            compile_plain(tc, src, args.source_lang[src], out, args.dep_args)


def _link(args: Args, tc: Toolchain, units: Units) -> None:
    """A program (or, -shared, a library, or, -S, its generated sources) from the
    command's files, objects and libraries, in command-line order."""
    output = args.output or "a.out"
    if args.output is None and args.mode == "sources":
        output = os.path.splitext(os.path.basename(args.sources[0]))[0]
    base = os.path.basename(output)
    items: list[LinkItem] = []
    for item in args.link_items:
        if isinstance(item, str):
            items.append(item)
            continue
        src = args.sources[item]
        if src in units:
            unit, ctx = units[src]
            ubase = base if len(units) == 1 else f"{base}.{unit.stem}"
            items.append(generate(unit, ctx, ubase, f"{ubase}.host.c"))
        else:
            items.append(Plain(src, args.source_lang[src]))
    keep_dir = os.path.dirname(os.path.abspath(output)) if (args.keep or args.mode == "sources") else None
    if args.mode == "shared":
        build_library(tc, items, (f"{base}.library.c", library_c()), output)
    else:
        build_program(tc, items, (f"{base}.runtime.c", glue_c()), output, keep_dir,
                      stop_before_compile=args.mode == "sources")
    if args.wants_deps and args.mode != "sources":
        for src in args.sources:
            write_deps(tc, src, args.source_lang[src], src in units, args.dep_args,
                       *dep_defaults(src, args.output, "link"))


def _show_stage(units: list[tuple[Unit, Context]], stage: str) -> None:
    from xmpacc.cbuild import to_c

    for unit, ctx in units:
        if stage == "preprocess":
            sys.stdout.write(escape_for_c(unit.pre.text))
        elif stage == "emit":
            sys.stdout.write(host_c(unit, ctx, f"{unit.stem}.record.h"))
        else:
            sys.stdout.write(escape_for_c(run_guarded(lambda u, _c: to_c(u.ast), unit, ctx)))


def _showme_alone(which: str) -> int:
    """--showme without files: the pieces of the host compiler's command, as MPI wrappers
    print them."""
    tc = Toolchain()
    pieces = {
        "--showme:command": tc.command,
        "--showme:compile": tc.compile_flags(),
        "--showme:link": ["-shared", "-fPIC", *PROGRAM_LINK_FLAGS, "-lm"],
        "--showme:version": [f"xmpacc {__version__}"],
    }
    print(" ".join(pieces.get(which, [*tc.command, *tc.compile_flags()])))
    return 0


# what xmpacc reads from the environment when it compiles (docs/xmpacc.md)
COMPILE_ENV = ("XMPACC_CC", "CC", "XMPACC_PYTHON", "XMPACC_MPICC", "XMPACC_STREAM", "XMPACC_STREAM_WALK",
               "XMPACC_STREAM_MINBLOCKS")


def show_env() -> str:
    """Omni's --show-env: the variables xmpacc reads at compile time (empty: not set), and
    the host compiler and Python they choose."""
    lines = [f"{name}={shlex.quote(os.environ.get(name, ''))}" for name in COMPILE_ENV]
    lines += [f"# host C compiler: {host_cc()}", f"# Python of the executables: {python_for_executable()}"]
    return "\n".join(lines) + "\n"


def _host_query(argv: list[str]) -> int | None:
    """-dumpversion, -dumpmachine, -print-*: the host compiler answers (build systems ask)."""
    if argv and all(a.startswith(HOST_QUERIES) for a in argv):
        return subprocess.run([*shlex.split(host_cc()), *argv], check=False).returncode
    if argv == ["-v"]:
        print(f"xmpacc {__version__}", flush=True)
        return subprocess.run([*shlex.split(host_cc()), "-v"], check=False).returncode
    return None


def main(argv: list[str] | None = None) -> int:
    argv = expand_response_files(sys.argv[1:] if argv is None else argv)
    if os.environ.get(RECURSION_GUARD):
        print("xmpacc: error: the host C compiler that xmpacc runs is xmpacc itself; set "
              "XMPACC_CC to a C compiler (gcc, clang)", file=sys.stderr)
        return 1
    if any(a in ("-h", "--help") for a in argv):
        sys.stdout.write(USAGE)
        return 0
    if "--version" in argv:
        print(f"xmpacc {__version__}")
        return 0
    if "--show-env" in argv:
        sys.stdout.write(show_env())
        return 0
    try:
        answered = _host_query(argv)
        if answered is not None:
            return answered
        args = parse_args(argv)
        if args.showme and not args.sources and not args.link_items:
            return _showme_alone(args.showme)
        return deepstack.call(lambda: run(args))
    except UsageError as e:
        print(f"xmpacc: error: {e}", file=sys.stderr)
        print("(xmpacc --help lists the options)", file=sys.stderr)
        return 1
    except (BuildError, OutputError) as e:
        print(f"xmpacc: error: {e}", file=sys.stderr)
        return 1
    except XmpErrors as e:
        print_errors(e.errors)
        return 1
    except XmpError as e:
        print_errors([e])
        return 1
    except KeyboardInterrupt:
        return 130
    except (InternalError, Exception) as e:  # noqa: BLE001 - last line of defence
        print(f"xmpacc: internal error: {type(e).__name__}: {e}\n"
              "This is a bug in xmpacc, not in your program; please report it with the "
              "source file.", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

