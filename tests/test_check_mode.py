"""Checked runs (``XMPACC_CHECK=1``, ``xmpacc -fcheck``): every access of a distributed
array is checked on the host and in kernels (host backend here; tests/test_gpu.py on a
GPU), and device copies are checked where data moves between host and device.

Programs in tests/check_programs/; the cache of checked variants goes to a temporary
folder (XMPACC_CACHE_DIR).
"""

from __future__ import annotations

import ctypes
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from conftest import REPO, SAMPLES, repo_builds, run_mpi, run_xmpacc, same_output, serial_output
from hypothesis import given
from test_distribution import SETTINGS, _c_array, layouts
from test_programs import program_builds
from test_samples import SAMPLE_LIST, sample_builds

from xmpacc.runtime import check, cstructs
from xmpacc.runtime.distribution import ArrayDimLayout, DistributionError, local_index

PROGRAMS = Path(__file__).parent / "check_programs"
HOST = {"XMPACC_DEVICE": "host"}
NOT_LOCAL = re.compile(r"^(\S+):(\d+): error: (\w+)((?:\[-?\d+\])+) is not on node (\d+) "
                       r"\(owner: node (\d+)\)(.*)$", re.M)


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cache")


@pytest.fixture
def env(cache: Path) -> dict[str, str]:
    return {**HOST, "XMPACC_CACHE_DIR": str(cache)}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The programs of tests/check_programs/, compiled once."""
    tmp = tmp_path_factory.mktemp("check")
    return {src.stem: build(src, tmp / src.stem) for src in sorted(PROGRAMS.glob("*.c"))}


def build(src: Path, out: Path, *args: str) -> Path:
    r = run_xmpacc(str(src), *args, "-o", str(out))
    assert r.returncode == 0, r.stderr
    return out


def read_line(src: Path, text: str) -> int:
    """The line of ``src`` that contains ``text`` (exactly one)."""
    found = [n for n, line in enumerate(src.read_text().splitlines(), 1) if text in line]
    assert len(found) == 1, found
    return found[0]


def assert_stopped_at(r: subprocess.CompletedProcess[str], src: Path, line: int) -> list[re.Match[str]]:
    """The run failed, every report is one of the wrong stencil's, at ``line``."""
    assert r.returncode != 0 and "Traceback" not in r.stderr, r.stderr
    found = list(NOT_LOCAL.finditer(r.stderr))
    assert found, r.stderr
    for m in found:
        assert (m.group(1), int(m.group(2))) == (src.name, line), m.group(0)
        me, owner = int(m.group(5)), int(m.group(6))
        assert abs(owner - me) == 1 and m.group(7) == "; shadow a[1] + reflect (a) would bring it"
    return found


# ------------------------------------------------------------------ the wrong stencil


@pytest.mark.mpi
def test_wrong_stencil_answers_wrong_without_checks(tmp_path: Path, env: dict[str, str],
                                                    built: dict[str, Path]) -> None:
    """The issue's program: 9405 on 4 nodes where the serial build says 9702."""
    assert serial_output(PROGRAMS / "stencil.c", tmp_path) == "sum = 9702\n"
    r = run_mpi(4, built["stencil"], env=env)
    assert r.returncode == 0 and r.stdout == "sum = 9405\n", r.stdout + r.stderr


@pytest.mark.mpi
def test_checked_run_stops_at_the_read(env: dict[str, str], built: dict[str, Path], cache: Path) -> None:
    src = PROGRAMS / "stencil.c"
    r = run_mpi(4, built["stencil"], env={**env, "XMPACC_CHECK": "1"})
    found = assert_stopped_at(r, src, read_line(src, "b[i] = a[i - 1] + a[i + 1];"))
    possible = {("25", 0, 1), ("24", 1, 0), ("50", 1, 2), ("49", 2, 1), ("75", 2, 3), ("74", 3, 2)}
    assert {(m.group(4)[1:-1], int(m.group(5)), int(m.group(6))) for m in found} <= possible
    assert r.stdout == ""
    assert list(cache.glob("checked-*.so")), "the checked variant is cached"


@pytest.mark.mpi
def test_fcheck_executable_is_always_checked(tmp_path: Path) -> None:
    src = PROGRAMS / "stencil.c"
    exe = build(src, tmp_path / "stencil", "-fcheck")
    with zipfile.ZipFile(exe) as z:
        names = z.namelist()
    assert "checked" in names and not any(n.startswith("check/") for n in names)
    r = run_mpi(2, exe, env={**HOST, "XMPACC_CACHE_DIR": str(tmp_path / "cache")})
    assert_stopped_at(r, src, read_line(src, "b[i] = a[i - 1] + a[i + 1];"))
    assert not (tmp_path / "cache").exists()   # nothing to build at run time


@pytest.mark.mpi
def test_checked_kernel_stops_at_the_read(env: dict[str, str], built: dict[str, Path]) -> None:
    src = PROGRAMS / "stencil_acc.c"
    exe = built["stencil_acc"]
    # unchecked, the kernel reads one element past each node's block: a wrong sum, silently
    # (what it reads there is whatever lies next to the buffer: 9603 when that memory is
    # zero, anything under another heap layout: a CI run printed a 22-digit sum); no exact value
    r = run_mpi(2, exe, env=env)
    assert r.returncode == 0 and r.stdout.startswith("sum = ") and r.stdout != "sum = 9702\n", \
        r.stdout + r.stderr
    r = run_mpi(2, exe, env={**env, "XMPACC_CHECK": "1"})
    assert_stopped_at(r, src, read_line(src, "b[i] = a[i - 1] + a[i + 1];"))


@pytest.mark.mpi
def test_the_line_is_the_access_not_the_statement(tmp_path: Path, env: dict[str, str]) -> None:
    """A statement over two lines: the report names the line of the bad subscript (emit.py
    gives it its own #line marker)."""
    text = (PROGRAMS / "stencil.c").read_text().replace("b[i] = a[i - 1] + a[i + 1];",
                                                        "b[i] = a[i]\n             + a[i + 1];")
    src = tmp_path / "two_lines.c"
    src.write_text(text)
    r = run_mpi(2, build(src, tmp_path / "two_lines"), env={**env, "XMPACC_CHECK": "1"})
    line = read_line(src, "+ a[i + 1];")
    assert f"two_lines.c:{line}: error: a[50] is not on node 0 (owner: node 1)" in r.stderr, r.stderr


# ------------------------------------------------------------------ other distributions

GRID = """\
#include <stdio.h>
#define N 8
double u[N][N], w[N][N];
#pragma xmp nodes p[2][2]
#pragma xmp template t[N][N]
#pragma xmp distribute t[block][{d1}] onto p
#pragma xmp align u[i][j] with t[i][j]
#pragma xmp align w[i][j] with t[i][j]
int main(void)
{{
    int i, j;
#pragma xmp loop (i, j) on t[i][j]
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            u[i][j] = i + j;
#pragma xmp loop (i, j) on t[i][j]
    for (i = 0; i < N; i++)
        for (j = 1; j < N; j++)
            w[i][j] = u[i][j - 1];
    return 0;
}}
"""


@pytest.mark.mpi
@pytest.mark.parametrize("d1, hint", [
    ("block", "; shadow u[0][1] + reflect (u) would bring it"),
    ("cyclic", "; 'u' is cyclic-distributed there, and cyclic dimensions take no shadow"),
])
def test_two_dimensions(tmp_path: Path, env: dict[str, str], d1: str, hint: str) -> None:
    src = tmp_path / "grid.c"
    src.write_text(GRID.format(d1=d1))
    r = run_mpi(4, build(src, tmp_path / "grid"), env={**env, "XMPACC_CHECK": "1"})
    found = list(NOT_LOCAL.finditer(r.stderr))
    assert r.returncode != 0 and found, r.stderr
    for m in found:
        assert int(m.group(2)) == read_line(src, "w[i][j] = u[i][j - 1];") and m.group(7) == hint, m.group(0)
        row, col = (int(x) for x in re.findall(r"-?\d+", m.group(4)))
        me, owner = int(m.group(5)), int(m.group(6))
        assert owner == (row // 4) * 2 + (col // 4 if d1 == "block" else col % 2) and owner != me


OUTSIDE = """\
#define N 100
double a[N], b[N];
#pragma xmp nodes p[*]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align a[i] with t[i]
#pragma xmp align b[i] with t[i]
{shadow}
int main(void)
{{
    int i;
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++) a[i] = i;
#pragma xmp reflect (a)
#pragma xmp loop on t[i]
    for (i = 0; i < N; i++)
        b[i] = {read};
    return 0;
}}
"""


@pytest.mark.mpi
@pytest.mark.parametrize("shadow, read, nprocs, expected", [
    ("#pragma xmp shadow a[0:1]", "a[i - 1]", 1,
     "prog.c:17: error: a[-1] is outside the array: 'a' has 100 elements (0..99)"),
    ("#pragma xmp shadow a[1]", "a[(i + 50) % N]", 4,
     "prog.c:17: error: a[75] is not on node 1 (owner: node 3); shadow a[*] + reflect (a) would bring it"),
])
def test_outside_the_array_and_far_away(tmp_path: Path, env: dict[str, str], shadow: str, read: str,
                                        nprocs: int, expected: str) -> None:
    """a[-1] is in no buffer (without a lower shadow: with one, the first node holds it for
    periodic reflects); a[i + 50] is no neighbour's edge, so only a full shadow brings it."""
    src = tmp_path / "prog.c"
    src.write_text(OUTSIDE.format(shadow=shadow, read=read))
    r = run_mpi(nprocs, build(src, tmp_path / "prog"), env={**env, "XMPACC_CHECK": "1"})
    assert r.returncode != 0 and expected in r.stderr, r.stderr


# ------------------------------------------------------------------ device copies


DEVICE_MISTAKES = [
    (1, "device_copies.c:{kernel}: error: the kernel of this loop reads 'a' on the device, but nothing was "
        "copied there: add '#pragma xmp acc replicate_sync in (a)' before the loop (node 0)"),
    (2, "device_copies.c:{kernel}: error: the kernel of this loop reads 'a' on the device, but the host "
        "changed a[1] after the last acc replicate_sync in (a): the device copy is stale; add "
        "'#pragma xmp acc replicate_sync in (a)' before the loop (node 0)"),
    (3, "device_copies.c:{host_read}: error: the host accesses a[0], but a kernel (device_copies.c:{writer}) "
        "wrote 'a' on the device after the last acc replicate_sync out (a): the host copy is stale; add "
        "'#pragma xmp acc replicate_sync out (a)' after that loop (node 0)"),
    (4, "device_copies.c:{reflect}: error: reflect (a) sends the host copy of 'a', but a kernel "
        "(device_copies.c:{writer}) wrote 'a' on the device after the last acc replicate_sync out (a); add "
        "'#pragma xmp acc replicate_sync out (a)' before the reflect"),
    (5, "device_copies.c:{sync_in}: error: acc replicate_sync in (a) overwrites the "
        "device copy of 'a', which a kernel (device_copies.c:{writer}) wrote after the last acc "
        "replicate_sync out (a); add '#pragma xmp acc replicate_sync out (a)' after that loop"),
]


@pytest.mark.mpi
@pytest.mark.parametrize("mistake, expected", DEVICE_MISTAKES,
                         ids=[f"mistake{m}" for m, _ in DEVICE_MISTAKES])
def test_device_copy_mistakes(env: dict[str, str], built: dict[str, Path], mistake: int,
                              expected: str) -> None:
    src = PROGRAMS / "device_copies.c"
    lines = src.read_text().splitlines()
    where = {"kernel": read_line(src, "b[i] = a[i] + 1;") - 2, "host_read": read_line(src, "s += a[i];"),
             "writer": read_line(src, "a[i] = b[i] * 2;") - 2,
             "reflect": read_line(src, "#pragma xmp reflect (a)"),
             "sync_in": [n for n, t in enumerate(lines, 1)
                         if "#pragma xmp acc replicate_sync in (a)" in t][1]}
    exe = built["device_copies"]
    r = run_mpi(1, exe, str(mistake), env=env)
    assert r.returncode == 0 and "error" not in r.stderr   # unchecked: no message
    r = run_mpi(1, exe, str(mistake), env={**env, "XMPACC_CHECK": "1"})
    assert r.returncode != 0 and expected.format(**where) in r.stderr, r.stderr


@pytest.mark.mpi
def test_right_program_passes_the_device_checks(tmp_path: Path, env: dict[str, str],
                                                built: dict[str, Path]) -> None:
    src = PROGRAMS / "device_copies.c"
    r = run_mpi(2, built["device_copies"], env={**env, "XMPACC_CHECK": "1"})
    assert r.returncode == 0 and r.stdout == serial_output(src, tmp_path) == "sum = 8125.0\n", r.stderr


# ------------------------------------------------------------------ no false alarms

# one program per feature the checks look at (every sample, lab and test program passed
# the same comparison when the checks were written; these keep it so)
CHECKED = [("laplace/laplace_xmp.c", 4), ("cyclic/sum_xmp.c", 3), ("nbody/nbody_acc.c", 3),
           ("fig3/fig3_acc.c", 2), ("labs/heat1d/step2_acc.c", 4),
           ("../tests/programs/reflect_width_periodic.c", 4), ("../tests/acc_programs/acc_features.c", 4)]


def _unchecked_build(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, src: Path) -> tuple[Path, str]:
    """(executable, serial output) of ``src``: the build another test module makes of it
    (tests/test_samples.py, tests/test_programs.py, tests/test_acc.py), else one here."""
    shown = {SAMPLES / s.xmp: s.name for s in SAMPLE_LIST}   # samples/MANIFEST
    if src in shown:
        b = sample_builds(tmp_path_factory)[shown[src]]
        assert b.error is None, b.error
        return b.exe, b.expected
    if src.parent == REPO / "tests" / "programs":
        return program_builds(tmp_path_factory)[src.name]
    if src.parent == REPO / "tests" / "acc_programs":
        return repo_builds(tmp_path_factory, "tests/acc_programs", [src.name])[src.name]
    serial = {"nbody_acc": "nbody/nbody_serial.c", "nbody_xmp": "nbody/nbody_serial.c",
              "laplace_acc": "laplace/laplace_serial.c", "laplace_xmp": "laplace/laplace_serial.c",
              "laplace_xmp_1d": "laplace/laplace_serial.c", "sum_xmp": "cyclic/sum_serial.c",
              "fig1_xmp": "fig1/fig1_serial.c", "fig3_acc": "fig3/fig3_serial.c"}.get(src.stem)
    oracle = SAMPLES / serial if serial else (src.parent / "step0_serial.c" if "labs" in str(src) else src)
    return build(src, tmp_path / "prog"), serial_output(oracle, tmp_path)


@pytest.mark.mpi
@pytest.mark.parametrize("sample, nprocs", CHECKED, ids=[Path(s).stem for s, _n in CHECKED])
def test_checked_run_of_a_right_program_prints_what_serial_prints(tmp_path: Path, env: dict[str, str],
                                                                  tmp_path_factory: pytest.TempPathFactory,
                                                                  sample: str, nprocs: int) -> None:
    exe, expected = _unchecked_build(tmp_path, tmp_path_factory, (SAMPLES / sample).resolve())
    r = run_mpi(nprocs, exe, env={**env, "XMPACC_CHECK": "1"})
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, expected)


# ------------------------------------------------------------------ how the checked variant is made


def test_executable_without_sources_asks_for_fcheck(tmp_path: Path, env: dict[str, str],
                                                   built: dict[str, Path]) -> None:
    exe = built["stencil"]
    stripped = tmp_path / "old"
    with zipfile.ZipFile(exe) as z, open(exe, "rb") as f:
        prefix = f.read().split(b"PK\x03\x04", 1)[0]
        entries = [(n, z.read(n)) for n in z.namelist() if not n.startswith("check/")]
    with open(stripped, "wb") as f:
        f.write(prefix)
        with zipfile.ZipFile(f, "w") as z:
            for name, data in entries:
                z.writestr(name, data)
    stripped.chmod(0o755)
    r = subprocess.run([str(stripped)], capture_output=True, text=True, env={**env, "XMPACC_CHECK": "1",
                                                                                   "PATH": "/usr/bin:/bin"})
    assert r.returncode == 1
    assert r.stderr == ("old: error: XMPACC_CHECK=1: this executable does not carry the sources of its "
                        "checked variant; build it again with 'xmpacc -fcheck'\n")


def test_unchecked_code_has_no_checks(tmp_path: Path) -> None:
    """Cost when off: the generated C, preprocessed without -D_XMPACC_CHECK, calls nothing."""
    r = run_xmpacc(str(PROGRAMS / "stencil_acc.c"), "-S", "-o", str(tmp_path / "s"))
    assert r.returncode == 0, r.stderr
    inc = str(Path(cstructs.INCLUDE_DIR))
    for name in ("s.host.c", "s.cu"):
        flags = ["-x", "c"] if name.endswith(".cu") else []
        plain = subprocess.run(["cc", "-E", "-I", inc, *flags, str(tmp_path / name)], capture_output=True,
                               text=True, check=True).stdout
        checked = subprocess.run(["cc", "-E", "-D_XMPACC_CHECK", "-I", inc, *flags, str(tmp_path / name)],
                                 capture_output=True, text=True, check=True).stdout
        for call in ("_xmpacc_check_l(", "_xmpacc_check_at"):
            assert call not in plain and call in checked, (name, call)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
@pytest.mark.parametrize("sample", ["../tests/check_programs/stencil_acc.c", "nbody/nbody_acc.c"])
def test_checked_kernels_compile_with_nvcc(tmp_path: Path, sample: str) -> None:
    r = run_xmpacc(str(SAMPLES / sample), "-S", "-o", str(tmp_path / "k"))
    assert r.returncode == 0, r.stderr
    r = subprocess.run(["nvcc", "-arch=sm_90", "-c", "-D_XMPACC_CHECK", str(tmp_path / "k.cu"), "-I",
                        str(REPO / "runtime" / "include"), "-o", str(tmp_path / "k.o")], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr


# ------------------------------------------------------------------ C check against Python

WRAPPER = r"""
#include "xmpacc_index.h"
void _xmpacc_check_fail(const void * array, int what, const long long * globals, const char * file,
                        int line) {
  (void)array; (void)what; (void)globals; (void)file; (void)line;
}
int w_check_dim(const _xmpacc_array_t *a, int d, long long g) { return _xmpacc_check_dim(a, d, g); }
"""


@pytest.fixture(scope="module")
def checklib(tmp_path_factory: pytest.TempPathFactory) -> ctypes.CDLL:
    tmp = tmp_path_factory.mktemp("check")
    src, lib = tmp / "w.c", tmp / "libw.so"
    src.write_text(WRAPPER)
    subprocess.run(["cc", "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-D_XMPACC_CHECK",
                    "-shared", "-fPIC", "-I", str(cstructs.INCLUDE_DIR), str(src), "-o", str(lib)],
                   check=True)
    dll = ctypes.CDLL(str(lib))
    dll.w_check_dim.argtypes = [ctypes.POINTER(cstructs.CArray), ctypes.c_int, ctypes.c_longlong]
    return dll


def _local(lay: ArrayDimLayout, g: int) -> bool:
    try:
        local_index(lay, g)
        return True
    except DistributionError:
        return False


@SETTINGS
@given(layouts())
def test_c_check_agrees_with_python(checklib: ctypes.CDLL, per_node: tuple[ArrayDimLayout, ...]) -> None:
    for lay in per_node:
        arr = ctypes.byref(_c_array(lay, 0, 0))
        for g in range(-4, lay.extent + 4):
            assert checklib.w_check_dim(arr, 0, g) == check.holds(lay, g), g
            if 0 <= g < lay.extent:
                assert check.holds(lay, g) == _local(lay, g), g
