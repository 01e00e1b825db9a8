"""Separate compilation: ``xmpacc -c`` objects, archives and shared libraries linked into
one program, extern distributed arrays and header directives, start-up order, and the
link step's errors (undefined symbols, missing libraries, objects of another xmpacc).

tests/multifile/ is a program in four files: field.h declares the distributed arrays
(extern, with align and shadow) and the nodes and template, main.c defines the arrays,
init.c and relax.c use them in ``loop ... acc`` loops, weight.c is plain C.  Built in one
command and file by file, it prints what its serial build prints under 1-4 processes.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_mpi, run_xmpacc, same_output

from xmpacc import __version__
from xmpacc.ccmessages import abi_symbol

MULTI = Path(__file__).parent / "multifile"
FILES = ["main.c", "init.c", "relax.c", "weight.c"]
HOST = {"XMPACC_DEVICE": "host"}


def ok(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    r = run_xmpacc(*args, cwd=cwd)
    assert r.returncode == 0, f"xmpacc {' '.join(args)}:\n{r.stderr}"
    return r


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.fixture(scope="module")
def serial(tmp_path_factory: pytest.TempPathFactory) -> str:
    tmp = tmp_path_factory.mktemp("serial")
    subprocess.run(["cc", "-w", *[str(MULTI / f) for f in FILES], "-lm", "-o", str(tmp / "s")], check=True)
    return subprocess.run([str(tmp / "s")], capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The program built three ways: one command, objects, objects + a static library."""
    tmp = tmp_path_factory.mktemp("multifile")
    ok(*[str(MULTI / f) for f in FILES], "-o", str(tmp / "one"))
    for f in FILES:
        ok("-c", str(MULTI / f), "-o", str(tmp / f.replace(".c", ".o")))
    ok(*[str(tmp / f.replace(".c", ".o")) for f in FILES], "-o", str(tmp / "objects"))
    subprocess.run(["ar", "rcs", str(tmp / "libfield.a"), str(tmp / "init.o"), str(tmp / "relax.o")],
                   check=True)
    ok(str(tmp / "main.o"), str(tmp / "weight.o"), f"-L{tmp}", "-lfield", "-o", str(tmp / "archive"))
    return {"one": tmp / "one", "objects": tmp / "objects", "archive": tmp / "archive"}


def _runs() -> list[object]:
    return [pytest.param(how, n, id=f"{how}-np{n}") for how in ("one", "objects") for n in (1, 2, 3, 4)] + \
        [pytest.param("archive", 2, id="archive-np2")]


@pytest.mark.mpi
@pytest.mark.parametrize("how,nprocs", _runs())
def test_multifile_program(builds: dict[str, Path], serial: str, how: str, nprocs: int) -> None:
    r = run_mpi(nprocs, builds[how], env=HOST)
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, serial)


def test_object_is_a_relocatable_elf_with_its_record(builds: dict[str, Path]) -> None:
    obj = builds["one"].parent / "relax.o"
    header = subprocess.run(["readelf", "-h", "-S", str(obj)], capture_output=True, text=True,
                            check=True).stdout
    assert "REL (Relocatable file)" in header and "xmpacc_units" in header
    symbols = subprocess.run(["nm", str(obj)], capture_output=True, text=True, check=True).stdout
    assert re.search(r" T relax$", symbols, re.M)
    assert re.search(r" U _xmpacc_a_u$", symbols, re.M), "u's descriptor is main.o's"
    defined = subprocess.run(["nm", str(obj.parent / "main.o")], capture_output=True, text=True).stdout
    assert re.search(r" [BC] u$", defined, re.M) and re.search(r" [BC] _xmpacc_a_u$", defined, re.M)
    assert f" U {abi_symbol()}" in symbols
    assert re.search(r" T _xmpacc_loop_relax_c_\d+_host$", symbols, re.M), "kernels for the host backend"
    # ld -r merges objects; the merged object links like the others
    merged = obj.parent / "merged.o"
    subprocess.run(["ld", "-r", str(obj.parent / "init.o"), str(obj), "-o", str(merged)], check=True)
    exe = obj.parent / "merged"
    ok(str(obj.parent / "main.o"), str(merged), str(obj.parent / "weight.o"), "-o", str(exe))
    assert run_mpi(2, exe, env=HOST).returncode == 0


def test_start_up_runs_in_link_order(builds: dict[str, Path], tmp_path: Path) -> None:
    objs = builds["one"].parent
    exe = tmp_path / "prog"
    ok(str(objs / "relax.o"), str(objs / "weight.o"), str(objs / "main.o"), str(objs / "init.o"), "-o",
       str(exe))
    r = subprocess.run([str(exe)], capture_output=True, text=True, env={**HOST, "XMPACC_VERBOSE": "1",
                                                                        "PATH": "/usr/bin:/bin"})
    assert r.returncode == 0, r.stderr
    order = re.search(r"xmpacc: start-up order: (.*)", r.stderr)
    assert order and [Path(p).name for p in order.group(1).split(", ")] == ["relax.c", "main.c", "init.c"]


# ---------------------------------------------------------------- shared declarations

SHARED_H = """\
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
"""
USES_T = """\
#include "shared.h"
int count_{name}(void)
{{
    int i, n = 0;
#pragma xmp loop on t[i] reduction(+:n)
    for (i = 0; i < N; i++)
        n++;
    return n;
}}
"""
MAIN_T = """\
#include <stdio.h>
#include <xmp.h>
int count_a(void);
int count_b(void);
int main(void)
{
    int a = count_a(), b = count_b();
    if (xmpc_node_num() == 0)
        printf("%d %d\\n", a, b);
    return 0;
}
"""


def test_header_template_is_one_object_checked_at_start_up(tmp_path: Path) -> None:
    """A template declared in a header belongs to the whole program; two files compiled
    with different macros see different declarations: an error naming both places."""
    write(tmp_path / "shared.h", SHARED_H)
    for name in "ab":
        write(tmp_path / f"{name}.c", USES_T.format(name=name))
    main = write(tmp_path / "main.c", MAIN_T)
    ok("-c", "-DN=10", "a.c", cwd=tmp_path)
    ok("-c", "-DN=10", "b.c", cwd=tmp_path)
    ok(str(main), "a.o", "b.o", "-o", "same", cwd=tmp_path)
    r = run_mpi(2, tmp_path / "same")
    assert (r.returncode, r.stdout) == (0, "10 10\n"), r.stderr
    ok("-c", "-DN=12", "b.c", cwd=tmp_path)
    ok(str(main), "a.o", "b.o", "-o", "differ", cwd=tmp_path)
    r = run_mpi(2, tmp_path / "differ")
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert "shared.h:2: error: template 't' is declared differently by two files" in r.stderr, r.stderr
    assert "(t[0:11] here, t[0:9] in a file started before)" in r.stderr


def test_extern_array_without_definition_is_a_link_error(tmp_path: Path) -> None:
    src = write(tmp_path / "a.c",
                MULTI.joinpath("init.c").read_text().replace('"field.h"', f'"{MULTI}/field.h"')
                + "int main(void) { init_field(); return 0; }\n")
    r = run_xmpacc(str(src), "-o", str(tmp_path / "prog"))
    assert r.returncode == 1
    assert re.search(r"undefined reference to [`'‘]u['’]", r.stderr), r.stderr
    assert not (tmp_path / "prog").exists()


# ---------------------------------------------------------------- link errors


def _link_error(tmp_path: Path, *args: str) -> str:
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    r = run_xmpacc(*args, "-o", str(out / "prog"))
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr
    assert not re.search(r"(?<!\w)_xmpacc_", r.stderr), f"a generated name in the message:\n{r.stderr}"
    assert list(out.iterdir()) == [], "nothing written"
    return r.stderr


XMP_NO_MAIN = "#pragma xmp nodes p[*]\nint f(void) { return 1; }\n"
CALLS_G = "#include <stdio.h>\n#pragma xmp nodes p[*]\nvoid g(void);\nint main(void) { g(); return 0; }\n"


@pytest.mark.parametrize("plain", [False, True], ids=["xmp", "plain"])
def test_missing_main(tmp_path: Path, plain: bool) -> None:
    src = write(tmp_path / "f.c", XMP_NO_MAIN.split("\n", 1)[1] if plain else XMP_NO_MAIN)
    err = _link_error(tmp_path, str(src))
    assert re.search(r"undefined reference to [`'‘]main['’]", err), err


def test_undefined_function_names_the_user_file(tmp_path: Path) -> None:
    err = _link_error(tmp_path, str(write(tmp_path / "calls.c", CALLS_G)))
    assert re.search(r"calls\.c:.*undefined reference to [`'‘]g['’]", err), err


def test_undefined_function_from_an_object(tmp_path: Path) -> None:
    write(tmp_path / "calls.c", CALLS_G)
    ok("-c", "calls.c", cwd=tmp_path)
    err = _link_error(tmp_path, str(tmp_path / "calls.o"))
    assert re.search(r"calls\.c:.*undefined reference to [`'‘]g['’]", err), err


def test_missing_library(tmp_path: Path) -> None:
    err = _link_error(tmp_path,
                      str(write(tmp_path / "ok.c", XMP_NO_MAIN + "int main(void) { return f(); }\n")),
                      "-lnot_a_library")
    assert "-lnot_a_library" in err


@pytest.mark.skipif(shutil.which("objcopy") is None, reason="objcopy (binutils) is not installed")
def test_object_of_another_xmpacc_version(tmp_path: Path) -> None:
    """An object whose record refers to another xmpacc's mark: refused, naming both."""
    write(tmp_path / "calls.c", CALLS_G.replace("g();", ""))
    ok("-c", "calls.c", cwd=tmp_path)
    old = abi_symbol("0.0.9", "0123456789abcdef")
    subprocess.run(["objcopy", f"--redefine-sym={abi_symbol()}={old}", str(tmp_path / "calls.o"),
                    str(tmp_path / "old.o")], check=True)
    err = _link_error(tmp_path, str(tmp_path / "old.o"))
    assert (f"old.o was compiled by xmpacc 0.0.9 (runtime contract 0123456789abcdef); this is "
            f"xmpacc {__version__}") in err, err


@pytest.mark.parametrize("where", ["missing/prog", "file/prog"])
def test_output_into_a_missing_directory(tmp_path: Path, where: str) -> None:
    write(tmp_path / "file", "")
    src = write(tmp_path / "ok.c", CALLS_G.replace("g();", ""))
    for args in ([str(src)], ["-c", str(src)]):
        r = run_xmpacc(*args, "-o", str(tmp_path / where))
        assert r.returncode == 1
        assert r.stderr.count("\n") == 1 and r.stderr.startswith("xmpacc: error: cannot write"), r.stderr


# ---------------------------------------------------------------- messages

VOID_MAIN = """\
#include <stdio.h>
#pragma xmp nodes p[*]
void main(void)
{
    int x = "not an int";
    printf("%d\\n", x);
}
"""


def test_compiler_messages_name_main_not_generated_functions(tmp_path: Path) -> None:
    src = write(tmp_path / "v.c", VOID_MAIN)
    r = run_xmpacc("-Wall", str(src), "-o", str(tmp_path / "v"))
    assert r.returncode == 0, r.stderr
    assert re.search(r"v\.c: In function [`'‘]main['’]", r.stderr), r.stderr
    assert f"{src}:5:" in r.stderr and "_xmpacc" not in r.stderr
    run = subprocess.run([str(tmp_path / "v")], capture_output=True, text=True)
    assert run.returncode == 0, "void main: exit status 0"


# ---------------------------------------------------------------- shared libraries


@pytest.mark.mpi
def test_shared_library_of_xmp_code(tmp_path: Path, serial: str) -> None:
    lib = tmp_path / "libfield.so"
    ok("-shared", str(MULTI / "init.c"), str(MULTI / "relax.c"), "-o", str(lib))
    exe = tmp_path / "prog"
    ok(str(MULTI / "main.c"), str(MULTI / "weight.c"), f"-L{tmp_path}", "-lfield", f"-Wl,-rpath,{tmp_path}",
       "-o", str(exe))
    r = run_mpi(2, exe, env=HOST)
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, serial)


def test_missing_shared_library_at_run_time(tmp_path: Path) -> None:
    lib = tmp_path / "lib" / "libfield.so"
    lib.parent.mkdir()
    ok("-shared", str(MULTI / "init.c"), str(MULTI / "relax.c"), "-o", str(lib))
    exe = tmp_path / "prog"
    ok(str(MULTI / "main.c"), str(MULTI / "weight.c"), f"-L{lib.parent}", "-lfield", "-o", str(exe))
    r = subprocess.run([str(exe)], capture_output=True, text=True, env={**HOST, "PATH": "/usr/bin:/bin"})
    assert r.returncode == 127 and "Traceback" not in r.stderr
    assert "error while loading shared libraries: libfield.so" in r.stderr, r.stderr


@pytest.mark.mpi
def test_runs_under_another_process_manager(builds: dict[str, Path], serial: str) -> None:
    """The launch path reads nothing of mpirun's own: MPICH's fork process manager (no
    hydra) starts the program as well (Open MPI's mpirun and Slurm's srun: see
    tests/mpi_launch_check.sh)."""
    gforker = Path(sys.executable).parent / "mpiexec.gforker"
    if not gforker.exists():
        pytest.skip("no mpiexec.gforker (MPICH wheel) in this environment")
    r = subprocess.run([str(gforker), "-np", "3", str(builds["objects"])], capture_output=True, text=True,
                       timeout=120, env={**os.environ, **HOST})
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, serial)


def test_messages_about_start_up_code_point_at_the_directive(tmp_path: Path) -> None:
    """A warning in the code generated for a file-scope directive: no generated function is
    named, and the column and caret point at the directive, not past the end of its line."""
    # (a pointer extent is xmpacc's own error now, directive_exprs.py; an extent that
    # overflows int is still the host compiler's warning)
    src = write(tmp_path / "w.c", "#include <stdio.h>\nint *n;\n#pragma xmp nodes p[4294967300LL]\n"
                                  "int main(void) { return 0; }\n")
    r = run_xmpacc(str(src), "-o", str(tmp_path / "w"))
    assert r.returncode == 0, r.stderr
    assert "In function" not in r.stderr and not re.search(r"(?<!\w)_xmpacc_", r.stderr), r.stderr
    assert f"{src}:3:13: warning:" in r.stderr
    assert "    3 | #pragma xmp nodes p[4294967300LL]\n      |             ^\n" in r.stderr


@pytest.mark.mpi
def test_plain_objects_from_cc_link_in(builds: dict[str, Path], serial: str, tmp_path: Path) -> None:
    """An object from a plain 'cc -c' (position-independent executable code, the
    default of gcc here) links into the program with the xmpacc objects."""
    objs = builds["one"].parent
    subprocess.run(["cc", "-c", str(MULTI / "weight.c"), "-o", str(tmp_path / "weight.o")], check=True)
    exe = tmp_path / "prog"
    ok(str(objs / "main.o"), str(objs / "init.o"), str(objs / "relax.o"), str(tmp_path / "weight.o"),
       "-o", str(exe))
    r = run_mpi(2, exe, env=HOST)
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, serial)
