"""The ``xmpacc`` command: behaves like a C compiler.

    xmpacc [options] file.c [more.c ...] [-o prog]

Files with ``#pragma xmp`` directives are translated; other ``.c`` files are compiled as
they are and linked in.  See ``xmpacc --help``.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field

from xmpacc import __version__, deepstack
from xmpacc.build import BuildError, BuildPlan, build
from xmpacc.diagnostics import (
    InternalError,
    SourceLoc,
    XmpError,
    XmpErrors,
    print_errors,
)
from xmpacc.driver import STAGES, Options, run_guarded, translate
from xmpacc.emit import glue_c, host_c
from xmpacc.emit_cu import kernels_cu
from xmpacc.frontend.rawbytes import escape_for_c
from xmpacc.info import render as render_info

USAGE = f"""\
usage: xmpacc [options] file.c [file.c ...] [-o prog]

Compiles C programs with XcalableMP / XcalableMP-ACC directives into an executable that
runs under mpirun (one node per MPI process).

options:
  -o FILE             write the executable to FILE (default a.out), atomically
  -D NAME[=VAL], -U NAME, -I DIR
                      preprocessor options (they also apply inside #pragma xmp lines)
  -O*, -g*, -f*, -m*, -W*, -std=*
                      passed to the host C compiler ($CC, default cc)
  -l LIB, -L DIR, -Wl,...
                      passed to the linker
  -S                  stop after generating the host C (FILE.host.c, FILE.runtime.c),
                      written next to the output (without -o: named after the first
                      source file, in the current folder); no executable
  --keep              build the executable and keep the generated sources next to it
  --stop-after=STAGE  stop after a compiler stage and print its result; one of
                      {", ".join(STAGES[:-1])}
  --info              say on stderr, for each directive, what was generated: how a loop
                      is distributed, its kernel and thread mapping, how each variable
                      reaches the GPU, bytes moved by reflect and replicate_sync
  -v                  print every command xmpacc runs
  --version           print the version and exit
  -h, --help          print this help and exit

environment: CC (host C compiler), XMPACC_PYTHON (Python that runs the executables).
"""


@dataclass
class Args:
    inputs: list[str] = field(default_factory=list)
    output: str | None = None          # -o; None: a.out (-S: named after the source)
    cpp_args: list[str] = field(default_factory=list)
    cflags: list[str] = field(default_factory=list)
    ldflags: list[str] = field(default_factory=list)
    link_inputs: list[str] = field(default_factory=list)
    stop_sources: bool = False
    keep: bool = False
    verbose: bool = False
    stop_after: str | None = None
    info: bool = False


class UsageError(Exception):
    pass


_WITH_VALUE = {"-o", "-D", "-U", "-I", "-l", "-L"}
_CFLAGS = {"-w", "-pedantic", "-pedantic-errors", "-pipe", "-ansi"}


def parse_args(argv: list[str]) -> Args:
    args = Args()
    it = iter(argv)
    for arg in it:
        if arg in _WITH_VALUE:
            value = next(it, None)
            if value is None:
                raise UsageError(f"missing argument after '{arg}'")
            arg = arg + value if arg != "-o" else arg
            if arg == "-o":
                args.output = value
                continue
        _classify(arg, args)
    if not args.inputs and not args.stop_after:
        raise UsageError("no input files")
    return args


def _classify(arg: str, args: Args) -> None:
    if arg.startswith(("-D", "-U", "-I")):
        args.cpp_args.append(arg)
    elif arg.startswith(("-l", "-L", "-Wl,")) or arg in ("-pthread",):
        args.ldflags.append(arg)
    elif arg.startswith(("-O", "-g", "-f", "-m", "-W", "-std=")) or arg in _CFLAGS:
        args.cflags.append(arg)
    elif arg.startswith("-o") and len(arg) > 2:
        args.output = arg[2:]
    elif arg == "-S":
        args.stop_sources = True
    elif arg == "--keep":
        args.keep = True
    elif arg == "-v":
        args.verbose = True
    elif arg == "--info":
        args.info = True
    elif arg.startswith("--stop-after="):
        stage = arg.split("=", 1)[1]
        if stage not in STAGES[:-1]:
            raise UsageError(f"unknown stage '{stage}' (one of: {', '.join(STAGES[:-1])})")
        args.stop_after = stage
    elif arg == "-c":
        raise UsageError("-c is not supported: give all source files in one xmpacc command")
    elif arg.startswith("-"):
        raise UsageError(f"unknown option '{arg}'")
    elif arg.endswith((".o", ".a", ".so")):
        args.link_inputs.append(arg)
    elif arg.endswith(".c"):
        args.inputs.append(arg)
    else:
        raise UsageError(f"'{arg}': input files must be .c, .o, .a or .so")


def _has_directives(path: str) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return any(line.lstrip().startswith("#") and "pragma" in line and "xmp" in line
                       for line in f)
    except OSError:
        raise XmpError(SourceLoc(path, 0, 0), "no such file") from None


def compile_program(args: Args) -> None:
    options = Options(cc=os.environ.get("CC", "cc"), cpp_args=args.cpp_args,
                      verbose=args.verbose, stop_after=args.stop_after)
    xmp_files = [p for p in args.inputs if _has_directives(p)]
    plain = [p for p in args.inputs if p not in xmp_files]
    units, errors = [], []
    for path in xmp_files:
        try:
            units.append(translate(path, options))
        except XmpErrors as e:
            errors += e.errors
        except XmpError as e:
            errors.append(e)
    if errors:
        raise XmpErrors(errors)
    for _unit, ctx in units:
        print_errors(ctx.diags.warnings)
    if args.info:
        for _unit, ctx in units:
            sys.stderr.writelines(line + "\n" for line in render_info(ctx.info))
    if args.stop_after:
        _show_stage(units, args.stop_after)
        return
    output = args.output or "a.out"
    if args.output is None and args.stop_sources:
        output = os.path.splitext(os.path.basename(args.inputs[0]))[0]
    stem = output
    sources = []
    for unit, ctx in units:
        name = f"{os.path.basename(stem)}.host.c" if len(units) == 1 else \
            f"{os.path.basename(stem)}.{unit.stem}.host.c"
        sources.append((name, host_c(unit, ctx)))
    sources.append((f"{os.path.basename(stem)}.runtime.c", glue_c(units)))
    cu = kernels_cu(units, f"{os.path.basename(stem)}.cu")
    has_main = any(ctx.has_main for _u, ctx in units)
    plan = BuildPlan(output=output, sources=sources, plain_sources=plain,
                     link_inputs=args.link_inputs, cflags=args.cflags, ldflags=args.ldflags,
                     cppflags=args.cpp_args,
                     plain_flags=[] if has_main else ["-Dmain=_xmpacc_user_main"],
                     cc=options.cc, verbose=args.verbose,
                     kernels=(f"{os.path.basename(stem)}.cu", cu) if cu else None)
    keep_dir = os.path.dirname(os.path.abspath(output)) if (args.keep or args.stop_sources) else None
    build(plan, keep_dir, stop_before_compile=args.stop_sources)


def _show_stage(units: list, stage: str) -> None:  # type: ignore[type-arg]
    from xmpacc.cbuild import to_c

    for unit, ctx in units:
        if stage == "preprocess":
            sys.stdout.write(escape_for_c(unit.pre.text))
        elif stage == "emit":
            sys.stdout.write(host_c(unit, ctx))
        else:
            sys.stdout.write(escape_for_c(run_guarded(lambda u, _c: to_c(u.ast), unit, ctx)))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if any(a in ("-h", "--help") for a in argv):
        sys.stdout.write(USAGE)
        return 0
    if "--version" in argv:
        print(f"xmpacc {__version__}")
        return 0
    try:
        args = parse_args(argv)
        deepstack.call(lambda: compile_program(args))
    except UsageError as e:
        print(f"xmpacc: error: {e}", file=sys.stderr)
        print("(xmpacc --help lists the options)", file=sys.stderr)
        return 1
    except BuildError as e:
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
