"""The xmpacc command behaves like a C compiler: preprocessor options (also inside
directives), host compiler and linker options, -S/--keep/-v/--version/--help, several
source files in one program, and an output file that is written atomically."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import textwrap
from pathlib import Path

import pytest
from conftest import run_mpi, run_xmpacc, xmpacc_command

from xmpacc import __version__
from xmpacc.options import UsageError, parse_args

# N, FOO and the header's SCALE come from the command line (-D, -U, -I).
DEFINES = """\
#include <stdio.h>
#include "scale.h"
#pragma xmp nodes p[*]
#pragma xmp template t(0:N-1)
#pragma xmp distribute t(block) onto p
double a[N];
#pragma xmp align a[i] with t(i)
int main(void)
{
    int i;
    double s = 0.0;
#pragma xmp loop on t(i) reduction(+:s)
    for (i = 0; i < N; i++) {
        a[i] = SCALE * i;
        s += a[i];
    }
#ifdef FOO
    printf("FOO is defined\\n");
#endif
    printf("N = %d  s = %.1f\\n", N, s);
    return 0;
}
"""

# a file without directives: xmpacc's -E, -c and -MMD of it are exactly cc's
PLAIN = """\
#include <stdio.h>
#include "inc/part.h"
static int calls;
int scaled(int x)
{
    calls++;
    fprintf(stderr, "scaled(%d), %d calls\\n", x, calls);
    return PART * x;
}
"""

SIMPLE = """\
#include <stdio.h>
#pragma xmp nodes p[*]
int main(void)
{
    printf("hello\\n");
    return 0;
}
"""


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def listing(directory: Path) -> set[str]:
    return {p.name for p in directory.iterdir()}


def run_alone(exe: Path) -> subprocess.CompletedProcess[str]:
    """``./prog``: one process, no mpirun."""
    return subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, check=False)


@pytest.fixture()
def defines_src(tmp_path: Path) -> Path:
    (tmp_path / "inc").mkdir()
    write(tmp_path / "inc" / "scale.h", "#define SCALE 2\n")
    return write(tmp_path / "defines.c", DEFINES)


# ---------------------------------------------------------------- information


def test_version() -> None:
    r = run_xmpacc("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"xmpacc {__version__}"


def test_help_lists_the_options() -> None:
    r = run_xmpacc("--help")
    assert r.returncode == 0 and r.stdout.startswith("usage: xmpacc")
    for option in ("-o FILE", "-D NAME", "-U NAME", "-I DIR", "-O*", "-l LIB", "-L DIR", "-Wl,",
                   "-S", "--keep", "-v", "--version"):
        assert option in r.stdout, option


def test_unknown_option_goes_to_the_host_compiler_with_a_warning(tmp_path: Path) -> None:
    """Like mpicc: an option xmpacc does not know is passed on, with a warning."""
    log = tmp_path / "cc.log"
    wrapper = write(tmp_path / "mycc", f'#!/bin/sh\necho "$@" >> {log}\nexec cc "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    r = run_xmpacc("--frobnicate", "-c", str(write(tmp_path / "a.c", SIMPLE)), "-o", str(tmp_path / "a.o"),
                   env={"XMPACC_CC": str(wrapper)})
    assert "xmpacc: warning: unknown option '--frobnicate' passed to the host compiler" in r.stderr
    assert all("--frobnicate" in line.split() for line in log.read_text().splitlines() if " -c " in line)
    assert r.returncode == 1 and "frobnicate" in r.stderr.split("xmpacc: warning")[-1], "cc refused it"


def test_unknown_option_with_werror_is_an_error(tmp_path: Path) -> None:
    r = run_xmpacc("-Werror", "--frobnicate", "-c", str(write(tmp_path / "a.c", PLAIN)), "-o",
                   str(tmp_path / "a.o"))
    assert r.returncode == 1 and "xmpacc: error: unknown option '--frobnicate'" in r.stderr
    assert not (tmp_path / "a.o").exists()


# ---------------------------------------------------------------- preprocessor


def test_defines_reach_directives_and_code(defines_src: Path, tmp_path: Path) -> None:
    exe = tmp_path / "prog"
    r = run_xmpacc("-DN=1000", "-I", str(tmp_path / "inc"), "-DFOO", "-UFOO", str(defines_src),
                   "-o", str(exe))
    assert r.returncode == 0, r.stderr
    # ./prog alone runs as one process (no mpirun)
    run = run_alone(exe)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "N = 1000  s = 999000.0\n"


def test_undefined_macro_in_directive_is_reported(defines_src: Path, tmp_path: Path) -> None:
    r = run_xmpacc("-I", str(tmp_path / "inc"), str(defines_src), "-o", str(tmp_path / "prog"))
    assert r.returncode == 1
    assert "Traceback" not in r.stderr and str(defines_src) in r.stderr


def test_feature_macros_reach_the_generated_c(tmp_path: Path) -> None:
    """-D_GNU_SOURCE and -DNDEBUG act on the real libc headers of the generated C too."""
    src = write(tmp_path / "gnu.c", textwrap.dedent("""\
        #include <assert.h>
        #include <math.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        #pragma xmp nodes p[*]
        int main(void)
        {
            char *s = strdup("pi");
            assert(0 && "NDEBUG turns this off");
            printf("%s = %.5f\\n", s, M_PI);
            free(s);
            return 0;
        }
        """))
    exe = tmp_path / "gnu"
    r = run_xmpacc("-std=c99", "-D_GNU_SOURCE", "-DNDEBUG", "-Werror", str(src), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    run = run_alone(exe)
    assert (run.returncode, run.stdout) == (0, "pi = 3.14159\n"), run.stderr


# ---------------------------------------------------------------- host compiler


def test_compiler_and_linker_options_reach_cc(tmp_path: Path) -> None:
    """$CC gets -O, -g, -f, -W and -std; the link gets -l, -L and -Wl,...; -v prints each
    command exactly as it runs it."""
    log = tmp_path / "cc.log"
    wrapper = write(tmp_path / "mycc", f'#!/bin/sh\necho "$@" >> {log}\nexec cc "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    libdir = tmp_path / "lib"
    libdir.mkdir()
    src = write(tmp_path / "hello.c", SIMPLE)
    r = run_xmpacc("-v", "-O2", "-g", "-fno-strict-aliasing", "-Wall", "-std=gnu11",
                   "-L", str(libdir), "-lm", "-Wl,--as-needed", str(src),
                   "-o", str(tmp_path / "hello"), env={"CC": str(wrapper)})
    assert r.returncode == 0, r.stderr
    calls = log.read_text().splitlines()
    link = [c for c in calls if "-shared" in c]
    assert len(link) == 1
    for flag in ("-O2", "-g", "-fno-strict-aliasing", "-Wall", "-std=gnu11", f"-L{libdir}", "-lm",
                 "-Wl,--as-needed"):
        assert flag in link[0].split(), flag
    assert any(c.startswith("-E ") for c in calls), "the preprocessor is $CC -E"
    printed = [line for line in r.stdout.splitlines() if line.startswith(str(wrapper))]
    assert len(printed) == len(calls), "-v prints every command"
    assert [p.split(" ", 1)[1] for p in printed if "-shared" in p] == link


def test_verbose_preprocessor_command_is_the_one_run(defines_src: Path, tmp_path: Path) -> None:
    r = run_xmpacc("-v", "-DN=8", "-I", str(tmp_path / "inc"), str(defines_src),
                   "-o", str(tmp_path / "p"))
    assert r.returncode == 0, r.stderr
    # the source's preprocessing (the glue's, -E -P, keys its cached object: glue_cache.py)
    cpp = [line for line in r.stdout.splitlines() if " -E " in line and " -P " not in line]
    assert len(cpp) == 1
    # the source's own folder is searched for #include "..." (it is fed on stdin)
    assert f"-I {defines_src.parent}" in cpp[0]


# ---------------------------------------------------------------- -S and --keep


def test_S_writes_the_generated_c_next_to_the_output(tmp_path: Path) -> None:
    src = write(tmp_path / "hello.c", SIMPLE)
    out = tmp_path / "out"
    out.mkdir()
    r = run_xmpacc("-S", str(src), "-o", str(out / "prog"))
    assert r.returncode == 0, r.stderr
    assert listing(out) == {"prog.host.c", "prog.record.h", "prog.runtime.c"}
    host = (out / "prog.host.c").read_text()
    assert host.startswith(f"/* Generated by xmpacc {__version__}")
    assert f'#line 3 "{src}"' in host


def test_S_without_o_names_the_files_after_the_source(tmp_path: Path) -> None:
    write(tmp_path / "hello.c", SIMPLE)
    r = run_xmpacc("-S", "hello.c", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert listing(tmp_path) == {"hello.c", "hello.host.c", "hello.record.h", "hello.runtime.c"}
    assert '#line 3 "hello.c"' in (tmp_path / "hello.host.c").read_text()


def test_keep_builds_and_keeps_the_sources(tmp_path: Path) -> None:
    src = write(tmp_path / "hello.c", SIMPLE)
    r = run_xmpacc("--keep", str(src), "-o", str(tmp_path / "prog"))
    assert r.returncode == 0, r.stderr
    assert listing(tmp_path) == {"hello.c", "prog", "prog.host.c", "prog.record.h", "prog.runtime.c"}
    run = run_alone(tmp_path / "prog")
    assert run.stdout == "hello\n"


def test_attached_o_and_default_a_out(tmp_path: Path) -> None:
    write(tmp_path / "hello.c", SIMPLE)
    assert run_xmpacc("hello.c", "-ohello", cwd=tmp_path).returncode == 0
    assert run_xmpacc("hello.c", cwd=tmp_path).returncode == 0
    assert {"hello", "a.out"} <= listing(tmp_path)


# ---------------------------------------------------------------- several files

HELPER = "double scale(double x) { return 2.0 * x; }\n"

USES_HELPER = """\
#include <stdio.h>
double scale(double x);
#define N 12
double a[N];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align a[i] with t[i]
int main(void)
{
    int i;
    double s = 0.0;
#pragma xmp loop on t[i] reduction(+:s)
    for (i = 0; i < N; i++) {
        a[i] = scale(i);
        s += a[i];
    }
#pragma xmp task on p[0]
    printf("s = %.1f\\n", s);
    return 0;
}
"""

PLAIN_MAIN = """\
#include <stdio.h>
double distributed_sum(int n);
int main(int argc, char **argv)
{
    printf("%s: sum = %.1f\\n", argc > 1 ? argv[1] : "?", distributed_sum(100));
    return 0;
}
"""

XMP_LIBRARY = """\
#pragma xmp nodes p[*]
#pragma xmp template t[100]
#pragma xmp distribute t[block] onto p
double distributed_sum(int n)
{
    int i;
    double s = 0.0;
#pragma xmp loop on t[i] reduction(+:s)
    for (i = 0; i < n; i++)
        s += i;
    return s;
}
"""


@pytest.mark.mpi
def test_plain_helper_file_linked_with_xmp_main(tmp_path: Path) -> None:
    main = write(tmp_path / "main_xmp.c", USES_HELPER)
    helper = write(tmp_path / "helper.c", HELPER)
    exe = tmp_path / "prog"
    r = run_xmpacc(str(main), str(helper), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    r = run_mpi(3, exe, timeout=60)
    assert (r.returncode, r.stdout) == (0, "s = 132.0\n"), r.stderr


@pytest.mark.mpi
def test_main_in_the_plain_file(tmp_path: Path) -> None:
    main = write(tmp_path / "main.c", PLAIN_MAIN)
    lib = write(tmp_path / "lib_xmp.c", XMP_LIBRARY)
    exe = tmp_path / "prog"
    r = run_xmpacc(str(main), str(lib), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    r = run_mpi(2, exe, "run", timeout=60)
    assert (r.returncode, r.stdout) == (0, "run: sum = 4950.0\nrun: sum = 4950.0\n"), r.stderr


SECOND_XMP = """\
double scale(double x);
#pragma xmp nodes q[*]
#pragma xmp template t[20]
#pragma xmp distribute t[cyclic] onto q
double b[20];
#pragma xmp align b[i] with t[i]
double other_sum(void)
{
    int i;
    double s = 0.0;
#pragma xmp loop on t[i] reduction(+:s)
    for (i = 0; i < 20; i++) {
        b[i] = scale(i);
        s += b[i];
    }
    return s;
}
"""


@pytest.mark.mpi
def test_two_xmp_files_and_a_plain_one(tmp_path: Path) -> None:
    """Each XMP file has its own template 't' (file scope, like static C names)."""
    main = write(tmp_path / "main_xmp.c", USES_HELPER.replace(
        "double scale(double x);", "double scale(double x);\ndouble other_sum(void);").replace(
        'printf("s = %.1f\\n", s);', 'printf("s = %.1f other = %.1f\\n", s, o);').replace(
        "double s = 0.0;", "double s = 0.0, o = other_sum();"))
    other = write(tmp_path / "other_xmp.c", SECOND_XMP)
    helper = write(tmp_path / "helper.c", HELPER)
    exe = tmp_path / "prog"
    r = run_xmpacc(str(main), str(other), str(helper), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    r = run_mpi(2, exe, timeout=60)
    assert (r.returncode, r.stdout) == (0, "s = 132.0 other = 380.0\n"), r.stderr


# ---------------------------------------------------------------- atomic output

BAD_CALL = """\
#include <stdio.h>
#pragma xmp nodes p[*]
int main(void)
{
    int x = 1;
    undeclared_function(x);
    return 0;
}
"""


@pytest.mark.parametrize("case", ["undeclared-function", "missing-library", "xmp-error"])
def test_failed_build_leaves_nothing_behind(tmp_path: Path, case: str) -> None:
    out_dir, tmp_dir = tmp_path / "out", tmp_path / "tmp"
    out_dir.mkdir()
    tmp_dir.mkdir()
    exe = out_dir / "prog"
    if case == "undeclared-function":
        src = write(tmp_path / "bad.c", BAD_CALL)
        args = ["-Werror=implicit-function-declaration", str(src)]
    elif case == "missing-library":
        args = [str(write(tmp_path / "ok.c", SIMPLE)), "-lnotthere"]
    else:
        undeclared = SIMPLE.replace("nodes p[*]", "distribute t[block] onto p")
        args = [str(write(tmp_path / "bad.c", undeclared))]
    r = run_xmpacc(*args, "-o", str(exe), env={"TMPDIR": str(tmp_dir)})
    assert r.returncode == 1
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr
    assert listing(out_dir) == set(), "no output and no half-written file"
    assert listing(tmp_dir) == set(), "no temporary files left"
    if case == "undeclared-function":
        # the host compiler's message points at the user's line (#line markers)
        assert f"{src}:6:" in r.stderr, r.stderr
        assert "xmpacc: error: the host C compiler failed" in r.stderr


def test_failed_build_keeps_an_existing_output(tmp_path: Path) -> None:
    exe = write(tmp_path / "prog", "previous build\n")
    src = write(tmp_path / "bad.c", BAD_CALL)
    r = run_xmpacc("-Werror=implicit-function-declaration", str(src), "-o", str(exe))
    assert r.returncode == 1
    assert exe.read_text() == "previous build\n"
    assert listing(tmp_path) == {"bad.c", "prog"}


def test_successful_build_replaces_the_output_in_one_step(tmp_path: Path) -> None:
    exe = write(tmp_path / "prog", "previous build\n")
    old_inode = exe.stat().st_ino
    r = run_xmpacc(str(write(tmp_path / "hello.c", SIMPLE)), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    assert exe.stat().st_ino != old_inode, "renamed into place, not rewritten"
    assert os.access(exe, os.X_OK)
    assert listing(tmp_path) == {"hello.c", "prog"}


# ---------------------------------------------------------------- the rest of a C driver


@pytest.fixture()
def plain_src(tmp_path: Path) -> Path:
    (tmp_path / "inc").mkdir()
    write(tmp_path / "inc" / "part.h", "#define PART 3\n")
    return write(tmp_path / "plain.c", PLAIN)


def cc(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    r = subprocess.run(["cc", *args], cwd=cwd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r


def test_E_of_a_plain_file_is_what_cc_writes(plain_src: Path) -> None:
    d = plain_src.parent
    ours = run_xmpacc("-E", "-DEXTRA=1", "plain.c", cwd=d)
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == cc("-E", "-DEXTRA=1", "plain.c", cwd=d).stdout
    assert run_xmpacc("-E", "plain.c", "-o", "plain.i", cwd=d).returncode == 0
    assert (d / "plain.i").read_text() == ours.stdout


def test_E_of_an_xmp_file_keeps_the_directives(tmp_path: Path) -> None:
    r = run_xmpacc("-E", str(write(tmp_path / "a.c", SIMPLE.replace("p[*]", "p[N]"))), "-DN=4")
    assert r.returncode == 0 and "#pragma xmp nodes p[N]" in r.stdout and "printf" in r.stdout


@pytest.mark.parametrize("flags", [[], ["-O2", "-g"], ["-O0", "-g", "-Wall", "-std=c99"]],
                         ids=["plain", "O2g", "O0g-std"])
def test_c_of_a_plain_file_is_what_cc_writes(plain_src: Path, flags: list[str]) -> None:
    """Byte for byte, given -fPIC (xmpacc adds it when it is not given: program.so is a
    shared object); the object links with cc."""
    d = plain_src.parent
    r = run_xmpacc("-c", "-fPIC", *flags, "plain.c", "-o", "ours.o", cwd=d)
    assert r.returncode == 0, r.stderr
    cc("-c", "-fPIC", *flags, "plain.c", "-o", "cc.o", cwd=d)
    assert (d / "ours.o").read_bytes() == (d / "cc.o").read_bytes()
    assert run_xmpacc("-c", *flags, "plain.c", "-o", "implicit.o", cwd=d).returncode == 0
    assert (d / "implicit.o").read_bytes() == (d / "cc.o").read_bytes()
    write(d / "main.c", "int scaled(int);\nint main(void) { return scaled(2) != 6; }\n")
    cc("main.c", "ours.o", "-o", "linked", cwd=d)
    assert subprocess.run([str(d / "linked")], capture_output=True).returncode == 0


def test_c_without_o_names_the_object_after_the_source(plain_src: Path, tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    write(tmp_path / "sub" / "x.c", SIMPLE)
    r = run_xmpacc("-c", "plain.c", "sub/x.c", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert {"plain.o", "x.o"} <= listing(tmp_path)
    r = run_xmpacc("-c", "plain.c", "sub/x.c", "-o", "both.o", cwd=tmp_path)
    assert r.returncode == 1 and "cannot specify '-o' with '-c'" in r.stderr


@pytest.mark.parametrize("dep_flags", [["-MMD"], ["-MD"], ["-MMD", "-MP"], ["-MMD", "-MF", "deps/x.d"],
                                       ["-MD", "-MT", "custom", "-MP"], ["-MMD", "-MQ", "$weird"]],
                         ids=["MMD", "MD", "MP", "MF", "MT", "MQ"])
def test_dependency_files_are_what_cc_writes(plain_src: Path, dep_flags: list[str]) -> None:
    """For a plain file the bytes of gcc's file; for a file with directives the same
    lines (the headers it includes, not xmpacc's own)."""
    d = plain_src.parent
    (d / "deps").mkdir()
    (d / "ours").mkdir()
    (d / "ref").mkdir()
    r = run_xmpacc("-c", *dep_flags, "plain.c", "-o", "ours/plain.o", cwd=d)
    assert r.returncode == 0, r.stderr
    dfile = d / "deps" / "x.d" if "-MF" in dep_flags else d / "ours" / "plain.d"
    got = dfile.read_text()
    dfile.unlink()
    cc("-c", "-fPIC", *dep_flags, "plain.c", "-o", "ref/plain.o", cwd=d)
    ref = (d / "deps" / "x.d" if "-MF" in dep_flags else d / "ref" / "plain.d").read_text()
    assert got == ref.replace("ref/plain.o", "ours/plain.o")
    # the same source with a directive: an XMP file, its dependencies found the same way
    write(d / "xmp.c", PLAIN.replace("static int calls;", "static int calls;\n#pragma xmp nodes p[*]"))
    r = run_xmpacc("-c", *dep_flags, "xmp.c", "-o", "ours/xmp.o", cwd=d)
    assert r.returncode == 0, r.stderr
    got = (d / "deps" / "x.d" if "-MF" in dep_flags else d / "ours" / "xmp.d").read_text()
    assert "inc/part.h" in got and "xmpacc" not in got and "fake_libc" not in got
    assert got.replace("xmp.", "plain.") == ref.replace("ref/plain.o", "ours/plain.o")


def test_x_c_include_and_isystem(tmp_path: Path) -> None:
    (tmp_path / "sys").mkdir()
    write(tmp_path / "sys" / "vendor.h", "#define VENDOR 7\n")
    write(tmp_path / "forced.h", "#define FORCED 5\n")
    write(tmp_path / "prog.src", SIMPLE.replace('printf("hello\\n");', 'printf("%d\\n", VENDOR * FORCED);')
          .replace("#include <stdio.h>", "#include <stdio.h>\n#include <vendor.h>"))
    r = run_xmpacc("-isystem", "sys", "-include", "forced.h", "-x", "c", "prog.src", "-x", "none", "-o", "p",
                   cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert run_alone(tmp_path / "p").stdout == "35\n"


WARNS = SIMPLE.replace("#pragma xmp nodes p[*]",
                       "#pragma xmp nodes p[*]\n#pragma xmp template t[4]\n"
                       "#pragma xmp distribute t[block] onto p\n"
                       "#pragma xmp align a[i] with t[i]\ndouble a[4];")


def test_werror_and_w_apply_to_xmpacc_warnings(tmp_path: Path) -> None:
    src = write(tmp_path / "w.c", WARNS)
    r = run_xmpacc(str(src), "-o", str(tmp_path / "p"))
    assert r.returncode == 0 and "warning: 'a' is declared after this directive" in r.stderr
    r = run_xmpacc("-Werror", str(src), "-o", str(tmp_path / "q"))
    assert r.returncode == 1 and "error: 'a' is declared after this directive" in r.stderr
    assert "[-Werror]" in r.stderr and not (tmp_path / "q").exists()
    r = run_xmpacc("-w", str(src), "-o", str(tmp_path / "r"))
    assert (r.returncode, r.stderr) == (0, "")


def test_response_files(tmp_path: Path) -> None:
    write(tmp_path / "my prog.c", SIMPLE.replace("hello", "from @file"))
    write(tmp_path / "inner.rsp", "-o 'out dir/prog'\n")
    write(tmp_path / "args.rsp", '"my prog.c" -O2\n@inner.rsp\n')
    (tmp_path / "out dir").mkdir()
    r = run_xmpacc("@args.rsp", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert run_alone(tmp_path / "out dir" / "prog").stdout == "from @file\n"


def test_showme_prints_the_commands_and_runs_none(tmp_path: Path) -> None:
    src = write(tmp_path / "a.c", SIMPLE)
    for opt in ("--showme", "-show"):
        r = run_xmpacc(opt, str(src), "-o", str(tmp_path / "prog"))
        assert r.returncode == 0, r.stderr
        lines = r.stdout.splitlines()
        assert any(" -E " in line for line in lines) and any(" -shared " in line for line in lines)
        assert listing(tmp_path) == {"a.c"}, "nothing built"
    r = run_xmpacc("--showme", "-c", str(src))
    assert r.returncode == 0 and " -c " in r.stdout and listing(tmp_path) == {"a.c"}
    alone = run_xmpacc("--showme")
    assert alone.returncode == 0 and "-fPIC" in alone.stdout and "include" in alone.stdout
    assert run_xmpacc("--showme:compile").stdout.startswith("-fPIC")
    assert "-Wl,-z,defs" in run_xmpacc("--showme:link").stdout


def test_host_compiler_queries(tmp_path: Path) -> None:
    """Build systems ask the compiler about itself; cc answers."""
    for query in ("-dumpversion", "-dumpmachine", "-print-search-dirs"):
        r = run_xmpacc(query)
        assert r.returncode == 0 and r.stdout == cc(query, cwd=tmp_path).stdout


def test_cc_naming_xmpacc_does_not_recurse(tmp_path: Path) -> None:
    """CC=xmpacc (a build system's setting) is not the host compiler: XMPACC_CC or cc is."""
    from conftest import xmpacc_command

    src = write(tmp_path / "a.c", SIMPLE)
    r = run_xmpacc(str(src), "-o", str(tmp_path / "p"), env={"CC": xmpacc_command()[0]}, timeout=60)
    assert r.returncode == 0, r.stderr
    wrapper = write(tmp_path / "cc-wrapper", f"#!/bin/sh\nexec {xmpacc_command()[0]} \"$@\"\n")
    wrapper.chmod(0o755)
    r = run_xmpacc(str(src), "-o", str(tmp_path / "q"), env={"XMPACC_CC": str(wrapper)}, timeout=60)
    assert r.returncode == 1 and "the host C compiler that xmpacc runs is xmpacc itself" in r.stderr


def test_xmpacc_python_at_compile_time_and_at_run_time(tmp_path: Path) -> None:
    """The executable runs with the Python xmpacc runs on, or $XMPACC_PYTHON given when
    compiling; $XMPACC_PYTHON set when running overrides both (compute nodes that see the
    environment at another path)."""
    import sys

    def wrapper(name: str) -> Path:
        w = write(tmp_path / name, f'#!/bin/sh\necho "via {name}" >&2\nexec {sys.executable} "$@"\n')
        w.chmod(0o755)
        return w

    exe = tmp_path / "prog"
    r = run_xmpacc(str(write(tmp_path / "a.c", SIMPLE)), "-o", str(exe),
                   env={"XMPACC_PYTHON": str(wrapper("built"))})
    assert r.returncode == 0, r.stderr
    env = {k: v for k, v in os.environ.items() if k != "XMPACC_PYTHON"}
    run = subprocess.run([str(exe)], capture_output=True, text=True, env=env)
    assert (run.returncode, run.stdout, run.stderr.splitlines()[0]) == (0, "hello\n", "via built")
    run = subprocess.run([str(exe)], capture_output=True, text=True,
                         env={**env, "XMPACC_PYTHON": str(wrapper("at-run-time"))})
    assert (run.returncode, run.stdout, run.stderr.splitlines()[0]) == (0, "hello\n", "via at-run-time")


def test_host_compiler_command_with_words(tmp_path: Path) -> None:
    """XMPACC_CC may be a command with words, as CC often is ('ccache gcc')."""
    log = tmp_path / "log"
    launcher = write(tmp_path / "launcher", f'#!/bin/sh\necho "$1" >> {log}\nexec "$@"\n')
    launcher.chmod(0o755)
    r = run_xmpacc(str(write(tmp_path / "a.c", SIMPLE)), "-o", str(tmp_path / "p"),
                   env={"XMPACC_CC": f"{launcher} cc"})
    assert r.returncode == 0, r.stderr
    assert set(log.read_text().split()) == {"cc"} and run_alone(tmp_path / "p").stdout == "hello\n"


@pytest.mark.parametrize("flag", ["-M", "-MM"])
def test_M_and_MM_print_the_dependencies(plain_src: Path, flag: str) -> None:
    d = plain_src.parent
    r = run_xmpacc(flag, "plain.c", cwd=d)
    assert r.returncode == 0 and r.stdout == cc(flag, "plain.c", cwd=d).stdout
    assert not (d / "a.out").exists() and not (d / "plain.o").exists()


# ---------------------------------------------------------------- Omni's options


@pytest.mark.parametrize("argv,expected", [
    (["-omp"], {"openmp": True, "output": None}),          # not '-o mp'
    (["--openmp"], {"openmp": True}),
    (["-fopenmp"], {"openmp": True, "cflags": []}),        # the Toolchain adds it once
    (["-omp", "-fno-openmp"], {"openmp": False}),
    (["-xacc", "--xcalableacc", "-acc", "--openacc", "-xacc=pgi", "--device=Kepler"],
     {"unknown": [], "ignored": [], "cflags": []}),
    (["--Wn-O3 -g"], {"cflags": ["-O3", "-g"]}),
    (["--Wn-O3,-g", "--Wn-fopenmp"], {"cflags": ["-O3", "-g"], "openmp": True}),
    (["--Wn-DLIST=1,2 -lm"], {"cpp_args": ["-DLIST=1,2"], "link_items": ["-lm", 0]}),
    (["--Wp-DSIZE=100", "--Wp-I inc -include cfg.h", "--Wp", "--Wp-x"],
     {"cpp_args": ["-DSIZE=100", "-Iinc", "-include", "cfg.h", "-x"]}),
    (["--Wl-lm", "--Wl-L/opt/lib,-lfoo -Wl,-rpath,/opt/lib", "--Wl-l m"],
     {"link_items": ["-lm", "-L/opt/lib", "-lfoo", "-Wl,-rpath,/opt/lib", "-lm", 0]}),
    (["--verbose", "--tmp"], {"verbose": True, "keep": True}),
    (["--debug", "--dry"], {"keep": True, "showme": "--showme"}),
    (["--stop-pp"], {"stop_after": "preprocess"}),
    (["--stop-frontend"], {"stop_after": "parse"}),
    (["--stop-translator"], {"stop_after": "entry"}),
    (["--stop-backend"], {"mode": "sources"}),
    (["--stop-compile"], {"mode": "compile"}),
])
def test_omni_options_mean_what_they_mean_to_omni(argv: list[str], expected: dict[str, object]) -> None:
    """Each of Omni's xmpcc options lands where the xmpacc option of the same meaning does
    (a source file after them: link item 0)."""
    args = parse_args([*argv, "a.c"])
    for name, value in expected.items():
        assert getattr(args, name) == value, name


@pytest.mark.parametrize("option,why", [
    ("--Wf-fsyntax", "Omni's front end"),
    ("--Wx-fxmpf", "XcodeML translator"),
    ("--Wb-O", "back end"),
    ("--no-ldg", "read-only cache"),
    ("--default-veclen=128", "block size"),
    ("--platform=OpenCL", "NVRTC"),
    ("--tlog-all", "XMPACC_PROFILE=1"),
])
def test_omni_options_of_stages_xmpacc_has_not_are_ignored_saying_why(option: str, why: str) -> None:
    args = parse_args([option, "a.c"])
    assert args.ignored == [(option, args.ignored[0][1])] and why in args.ignored[0][1]
    assert not args.cflags and not args.unknown


@pytest.mark.parametrize("argv,message", [
    (["--default-veclen=x"], "'--default-veclen=x': the vector length must be a number"),
    (["--device="], "'--device=' needs a value"),
    (["-x", "acc"], "'-x acc': xmpacc compiles C only"),
    (["--Wl-l"], "missing argument to '-l'"),
])
def test_omni_option_mistakes(argv: list[str], message: str) -> None:
    with pytest.raises(UsageError, match=re.escape(message)):
        parse_args([*argv, "a.c"])


def test_omni_options_in_commands(tmp_path: Path) -> None:
    """What each command gets: -fopenmp in the front end's cpp (it defines _OPENMP and
    expands macros in OpenMP lines), every compile and the link; --Wn's options in the
    compile, --Wl's at their place in the link, --Wp's in cpp and the compile; the ignored
    options warn once each (-w silences them, -Werror makes them errors)."""
    src = write(tmp_path / "a.c", SIMPLE)
    r = run_xmpacc("--dry", "-omp", "-xacc", "--device=Volta", "--Wn-O3 -g", "--Wl-lm", "--Wp-DSIZE=100",
                   "--Wf-x", "--no-ldg", str(src), "--Wl-lfoo", "-o", str(tmp_path / "prog"))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    cpp, link = (next(line.split() for line in lines if word in line) for word in (" -E ", "-shared"))
    assert {"-fopenmp", "-DSIZE=100"} <= set(cpp)
    assert {"-fopenmp", "-O3", "-g", "-DSIZE=100"} <= set(link)
    host = next(k for k, w in enumerate(link) if w.endswith("prog.host.c"))
    assert link.index("-lm") < host < link.index("-lfoo"), "--Wl options keep their place"
    assert r.stderr.splitlines() == [
        "xmpacc: warning: Omni's option '--Wf-x' ignored: it is an option of Omni's front end (C to "
        "XcodeML), which xmpacc has not",
        "xmpacc: warning: Omni's option '--no-ldg' ignored: xmpacc's kernels choose where to read through "
        "the read-only cache"]
    assert listing(tmp_path) == {"a.c"}, "--dry builds nothing"
    assert run_xmpacc("--dry", "-w", "--no-ldg", str(src)).stderr == ""
    r = run_xmpacc("--dry", "-Werror", "--no-ldg", str(src))
    assert r.returncode == 1 and "xmpacc: error: Omni's option '--no-ldg' ignored" in r.stderr


def test_omni_stop_options(tmp_path: Path) -> None:
    src = write(tmp_path / "a.c", SIMPLE)
    r = run_xmpacc("--stop-pp", "--Wp-DGREETING", str(src))
    assert r.returncode == 0 and "#pragma xmp_0" in r.stdout and "printf" in r.stdout
    r = run_xmpacc("--stop-backend", "a.c", cwd=tmp_path)
    assert r.returncode == 0 and listing(tmp_path) == {"a.c", "a.host.c", "a.record.h", "a.runtime.c"}
    r = run_xmpacc("--stop-compile", "a.c", cwd=tmp_path)
    assert r.returncode == 0 and "a.o" in listing(tmp_path) and "a" not in listing(tmp_path)


def test_omni_show_env() -> None:
    r = run_xmpacc("--show-env", env={"XMPACC_CC": "gcc -m64"})
    assert r.returncode == 0
    assert "XMPACC_CC='gcc -m64'" in r.stdout.splitlines() and "# host C compiler: gcc -m64" in r.stdout


def test_xmpcc_on_path_running_xmpacc(tmp_path: Path) -> None:
    """Makefiles that name Omni's driver: an ``xmpcc`` that is xmpacc (a link) reads Omni's
    options, and CC=xmpcc is not taken for the host compiler."""
    xmpcc = tmp_path / "bin" / "xmpcc"
    xmpcc.parent.mkdir()
    xmpcc.symlink_to(xmpacc_command()[0])
    src = write(tmp_path / "a.c", SIMPLE)
    r = subprocess.run([str(xmpcc), "-omp", "-xacc", "--dry", str(src)], capture_output=True, text=True,
                       timeout=120, env={**os.environ, "CC": str(xmpcc), "XMPACC_CC": ""})
    assert r.returncode == 0 and r.stderr == "", r.stderr
    link = next(line.split() for line in r.stdout.splitlines() if "-shared" in line)
    assert link[0] == "cc" and "-fopenmp" in link
