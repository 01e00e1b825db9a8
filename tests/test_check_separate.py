"""Checked runs and MPI flags of programs built file by file (``-c``, ``ar``, link):
every XMP object carries its generated C (xmpacc/checked.py), so XMPACC_CHECK=1 and
-fcheck check the code of objects and archive members too; a ``-c`` of a file that
includes <mpi.h> compiles against mpi4py's MPI, and a link of objects that call MPI gets
its link flags (xmpacc/mpi_flags.py)."""

from __future__ import annotations

import re
import subprocess
import zipfile
from pathlib import Path

import pytest
from conftest import run_mpi, run_xmpacc

HOST = {"XMPACC_DEVICE": "host"}
LIBRARY = Path(__file__).parent / "library"

GRID_H = """\
#define N 100
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
extern double a[N], b[N];
#pragma xmp align a[i] with t[i]
#pragma xmp align b[i] with t[i]
void fill(void);
void smooth(void);
double total(void);
"""
MAIN_C = """\
#include <stdio.h>
#include "grid.h"
double a[N], b[N];
int report(double s);
int main(void)
{
    fill();
    smooth();
    return report(total());
}
"""
FILL_C = """\
#include "grid.h"
void fill(void)
{
    int i;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++)
        a[i] = i;
}
double total(void)
{
    int i;
    double s = 0;
#pragma xmp loop on t[i] reduction(+:s)
    for (i = 1; i < N - 1; i++)
        s += b[i];
    return s;
}
"""
SMOOTH_C = """\
#include "grid.h"
void smooth(void)
{
    int i;
#pragma xmp loop on t[i]
    for (i = 1; i < N - 1; i++)
        b[i] = a[i - 1] + a[i + 1];
}
"""
REPORT_C = """\
#include <stdio.h>
#include <xmp.h>
int report(double s)
{
    if (xmpc_node_num() == 0)
        printf("sum = %.0f\\n", s);
    return 0;
}
"""
NOT_LOCAL = re.compile(r"^smooth\.c:7: error: a\[(\d+)\] is not on node (\d) \(owner: node (\d)\)", re.M)


def ok(*args: str, cwd: Path) -> None:
    r = run_xmpacc(*args, cwd=cwd)
    assert r.returncode == 0, f"xmpacc {' '.join(args)}:\n{r.stderr}"


@pytest.fixture(scope="module")
def separate(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """main.o and report.o (plain C) linked with libsteps.a (fill.o, smooth.o)."""
    tmp = tmp_path_factory.mktemp("separate")
    for name, text in (("grid.h", GRID_H), ("main.c", MAIN_C), ("fill.c", FILL_C), ("smooth.c", SMOOTH_C),
                       ("report.c", REPORT_C)):
        (tmp / name).write_text(text)
    for name in ("main", "fill", "smooth", "report"):
        ok("-c", f"{name}.c", cwd=tmp)
    subprocess.run(["ar", "rcs", "libsteps.a", "fill.o", "smooth.o"], cwd=tmp, check=True)
    ok("main.o", "report.o", "-L.", "-lsteps", "-o", "prog", cwd=tmp)
    return tmp


def assert_stopped_in_the_archive_member(r: subprocess.CompletedProcess[str]) -> None:
    found = list(NOT_LOCAL.finditer(r.stderr))
    assert r.returncode != 0 and found and "Traceback" not in r.stderr, r.stderr
    for m in found:
        assert abs(int(m.group(2)) - int(m.group(3))) == 1, m.group(0)


@pytest.mark.mpi
def test_checked_run_of_objects_and_an_archive(separate: Path, tmp_path: Path) -> None:
    exe = separate / "prog"
    r = run_mpi(2, exe, env=HOST)
    assert r.returncode == 0 and r.stdout != "sum = 9702\n", r.stdout + r.stderr   # wrong, unchecked
    with zipfile.ZipFile(exe) as z:
        names = z.namelist()
    # the generated C of the three XMP files (report.c is plain: linked as it is)
    assert {n.split("/")[-1] for n in names if n.startswith("check/u")} >= {"main.c", "fill.c", "smooth.c"}
    r = run_mpi(2, exe, env={**HOST, "XMPACC_CHECK": "1", "XMPACC_CACHE_DIR": str(tmp_path / "cache")})
    assert_stopped_in_the_archive_member(r)
    assert list((tmp_path / "cache").glob("checked-*.so"))


@pytest.mark.mpi
def test_checked_variant_keeps_the_start_up_order(separate: Path, tmp_path: Path) -> None:
    env = {**HOST, "XMPACC_VERBOSE": "1", "XMPACC_CACHE_DIR": str(tmp_path / "cache")}
    orders = []
    for check in ("0", "1"):
        r = run_mpi(1, separate / "prog", env={**env, "XMPACC_CHECK": check})
        m = re.search(r"xmpacc: start-up order: (.*)", r.stderr)
        assert m, r.stderr
        orders.append([Path(p).name for p in m.group(1).split(", ")])
    assert orders[0] == orders[1] == ["main.c", "fill.c", "smooth.c"]


@pytest.mark.mpi
def test_fcheck_link_of_unchecked_objects(separate: Path) -> None:
    """-fcheck at the link compiles every XMP file of the program again, checked."""
    ok("-fcheck", "main.o", "report.o", "-L.", "-lsteps", "-o", "checked_prog", cwd=separate)
    with zipfile.ZipFile(separate / "checked_prog") as z:
        names = z.namelist()
    assert "checked" in names and not any(n.startswith("check/") for n in names)
    r = run_mpi(2, separate / "checked_prog", env={**HOST, "XMPACC_CACHE_DIR": str(separate / "nocache")})
    assert_stopped_in_the_archive_member(r)
    assert not (separate / "nocache").exists()


@pytest.mark.mpi
def test_fcheck_object(separate: Path) -> None:
    """-fcheck -c: that object's accesses are checked, in any program."""
    ok("-fcheck", "-c", "smooth.c", "-o", "smooth_checked.o", cwd=separate)
    ok("main.o", "report.o", "fill.o", "smooth_checked.o", "-o", "half", cwd=separate)
    assert_stopped_in_the_archive_member(run_mpi(2, separate / "half", env=HOST))


MPI_HELPER = """\
#include <mpi.h>
int world_size(void)
{
    int n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}
"""
MPI_MAIN = """\
#include <stdio.h>
#include <xmp.h>
#pragma xmp nodes p[*]
int world_size(void);
int main(void)
{
    if (xmpc_node_num() == 0)
        printf("world of %d\\n", world_size());
    return 0;
}
"""


@pytest.mark.mpi
def test_c_of_files_that_use_mpi(tmp_path: Path) -> None:
    """An XMP file and a plain C file that include <mpi.h>, compiled with -c (and -MD: not
    -MMD, which leaves out mpi.h when xmp.h, a system header, includes it first), linked
    from the objects and from an archive: the link finds MPI in them."""
    (tmp_path / "helper.c").write_text(MPI_HELPER)
    (tmp_path / "main.c").write_text(MPI_MAIN)
    ok("-c", "-MD", str(LIBRARY / "mpi_interop.c"), "-o", "interop.o", cwd=tmp_path)
    assert "mpi.h" in (tmp_path / "interop.d").read_text()
    ok("-c", "helper.c", "main.c", cwd=tmp_path)
    ok("interop.o", "-o", "interop", cwd=tmp_path)
    r = run_mpi(2, tmp_path / "interop", timeout=60)
    assert r.returncode == 0 and r.stdout.startswith("initialized 1  world 0 of 2"), r.stdout + r.stderr
    subprocess.run(["ar", "rcs", "libhelper.a", "helper.o"], cwd=tmp_path, check=True)
    ok("main.o", "-L.", "-lhelper", "-o", "sizes", cwd=tmp_path)
    r = run_mpi(3, tmp_path / "sizes", timeout=60)
    assert r.returncode == 0 and r.stdout == "world of 3\n", r.stdout + r.stderr


def test_objects_that_use_mpi_without_mpi_found(tmp_path: Path) -> None:
    (tmp_path / "helper.c").write_text(MPI_HELPER)
    (tmp_path / "main.c").write_text(MPI_MAIN)
    ok("-c", "helper.c", "main.c", cwd=tmp_path)
    r = run_xmpacc("main.o", "helper.o", "-o", "sizes", cwd=tmp_path,
                   env={"XMPACC_MPICC": "/nonexistent/mpicc", "XMPACC_PYTHON": "/nonexistent/python",
                        "PATH": "/usr/bin:/bin"})
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "'helper.o' uses MPI (MPI_Comm_size), but no MPI installation was found" in r.stderr, r.stderr


def test_link_inputs_are_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The MPI probe and the checked build look into the same object: one read."""
    from xmpacc import checked, elf, mpi_flags

    obj = tmp_path / "plain.o"
    subprocess.run(["cc", "-c", "-x", "c", "-", "-o", str(obj)], input="void f(void) {}\n", text=True,
                   check=True)
    reads: list[str] = []
    real = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: reads.append(str(self)) or real(self))
    inputs = elf.Inputs()
    assert mpi_flags.input_using_mpi([str(obj)], inputs) is None
    assert not checked.is_xmp_object(str(obj), inputs)
    assert reads == [str(obj)]


def test_mpi_flags_are_kept_in_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """mpi4py is asked once per installation: a later compile reads the cache folder, and a
    cached MPI whose folders are gone is asked about again."""
    import sys

    from xmpacc import mpi_flags

    monkeypatch.setenv("XMPACC_CACHE_DIR", str(tmp_path))
    include = tmp_path / "mpi" / "include"
    include.mkdir(parents=True)
    asked: list[str] = []
    answer = ((f"-I{include}",), (f"-L{include}", "-lmpi"))
    monkeypatch.setattr(mpi_flags, "_ask", lambda python: asked.append(python) or answer)
    for _ in range(2):
        mpi_flags.mpi_flags.cache_clear()
        assert mpi_flags.mpi_flags(sys.executable) == answer
    assert len(asked) == 1 and len(list(tmp_path.glob("mpi-flags-*.json"))) == 1
    include.rmdir()
    mpi_flags.mpi_flags.cache_clear()
    mpi_flags.mpi_flags(sys.executable)
    assert len(asked) == 2
    # another Python's mpi4py is asked every time: it cannot be fingerprinted from here
    mpi_flags.mpi_flags.cache_clear()
    mpi_flags.mpi_flags("/nonexistent/python")
    mpi_flags.mpi_flags.cache_clear()
    assert len(asked) == 3
