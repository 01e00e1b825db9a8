"""``xmpacc --info``: one remark per directive saying what was generated.

Each sample of samples/MANIFEST is compiled with ``--info -S`` from the repository root
with a relative path, and its remarks are compared with ``tests/golden/<sample>.info``.
After a deliberate change of the remarks (or of what the passes generate), rewrite them
and review their diff:

    XMPACC_UPDATE_GOLDEN=1 pytest tests/test_info.py

The targeted tests below pin what matters most: the lane split of the n-body kernel, the
bytes of a reflect whose extents are constants, and "known at run time" otherwise.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import REPO, SAMPLES, run_xmpacc

from xmpacc.facts import value

GOLDEN = Path(__file__).parent / "golden"
UPDATE = bool(os.environ.get("XMPACC_UPDATE_GOLDEN"))
SAMPLE_FILES = [line.split()[0] for line in (SAMPLES / "MANIFEST").read_text().splitlines()
                if line.strip() and not line.lstrip().startswith("#")]


@pytest.fixture(scope="module")
def remarks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """``xmpacc --info -S`` of every sample: its stderr, by sample name."""
    tmp = tmp_path_factory.mktemp("info")
    out = {}
    for rel in SAMPLE_FILES:
        name = Path(rel).stem
        r = run_xmpacc("--info", "-S", f"samples/{rel}", "-o", str(tmp / name), cwd=REPO)
        assert r.returncode == 0, r.stderr
        # the remarks only: warnings (e.g. nbody's template t, also a C variable) have tests of their own
        out[name] = "".join(line + "\n" for line in r.stderr.splitlines() if ": info: " in line)
    return out


@pytest.mark.parametrize("rel", SAMPLE_FILES, ids=[Path(r).stem for r in SAMPLE_FILES])
def test_golden(rel: str, remarks: dict[str, str]) -> None:
    name = Path(rel).stem
    golden = GOLDEN / f"{name}.info"
    got = remarks[name]
    if UPDATE:
        golden.write_text(got)
    assert golden.exists(), f"no {golden.name}: run XMPACC_UPDATE_GOLDEN=1 pytest {__file__}"
    assert got == golden.read_text()


def test_one_remark_per_directive(remarks: dict[str, str]) -> None:
    for rel in SAMPLE_FILES:
        name = Path(rel).stem
        lines = (REPO / "samples" / rel).read_text().splitlines()
        directives = [n for n, text in enumerate(lines, 1) if text.lstrip().startswith("#pragma xmp")]
        remarked = [int(line.split(":")[1]) for line in remarks[name].splitlines()]
        assert remarked == directives, name
        assert all(": info: " in line for line in remarks[name].splitlines())


def _line(text: str, where: str) -> str:
    found = [line for line in text.splitlines() if line.startswith(where)]
    assert len(found) == 1, f"no single remark at {where}:\n{text}"
    return found[0]


def test_nbody_lane_split(remarks: dict[str, str]) -> None:
    force = _line(remarks["nbody_acc"], "samples/nbody/nbody_acc.c:65:")
    assert "kernel _xmpacc_loop_nbody_acc_c_65, one thread per local iteration" in force
    assert "inner j-loop split over up to 32 lanes (accumulators acc_x, acc_y, acc_z)" in force
    assert "device arrays p_x, p_y, p_z, m, v_x, v_y, v_z; by value: (none); private: (none)" in force
    update = _line(remarks["nbody_acc"], "samples/nbody/nbody_acc.c:83:")
    assert "no lane split" in update
    sync = _line(remarks["nbody_acc"], "samples/nbody/nbody_acc.c:62:")
    assert "host -> device" in sync and "3 x 2,048 = 6,144 bytes per node" in sync


def test_reflect_bytes_of_laplace(remarks: dict[str, str]) -> None:
    # 31 x 47 on 2 x 2 nodes: blocks of <= 16 x 24; rows of the owned 24 columns first,
    # then columns of 16 + 2 rows (corners included): (2*24 + 2*18) * 8 bytes
    line = _line(remarks["laplace_xmp"], "samples/laplace/laplace_xmp.c:48:")
    assert "shadow [1][1] of a 31 x 47 double array: 2 x 24 + 2 x 18 elements" in line
    assert "<= 672 bytes received per node" in line


CONSTANT = """\
#define N 100
#define M 10
double a[N][M];
#pragma xmp nodes p[4]
#pragma xmp template t[N]
#pragma xmp distribute t[block] onto p
#pragma xmp align a[i][*] with t[i]
#pragma xmp shadow a[2:1][0]
int main(void)
{
#pragma xmp reflect (a)
#pragma xmp reflect (a) width(1:0, 0)
    return 0;
}
"""

RUN_TIME = """\
const int n = 100;
double a[16][n];
#pragma xmp nodes p[*]
#pragma xmp template t[16]
#pragma xmp distribute t[block] onto p
#pragma xmp align a[i][*] with t[i]
#pragma xmp shadow a[1][0]
int main(void)
{
#pragma xmp reflect (a)
    return 0;
}
"""


def _info(tmp_path: Path, text: str, *extra: str) -> tuple[str, Path]:
    (tmp_path / "prog.c").write_text(text)
    r = run_xmpacc("--info", *extra, "prog.c", "-o", "prog", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    return r.stderr, tmp_path / "prog"


def test_reflect_bytes_constant_extents(tmp_path: Path) -> None:
    text, _ = _info(tmp_path, CONSTANT, "-S")
    assert "local block <= 25 x 10" in _line(text, "prog.c:7:")
    assert "local buffer <= 28 x 10 double, <= 2,240 bytes per node" in _line(text, "prog.c:8:")
    assert "3 x 10 elements, <= 240 bytes received per node" in _line(text, "prog.c:11:")
    assert "1 x 10 elements, <= 80 bytes received per node" in _line(text, "prog.c:12:")


def test_reflect_size_known_at_run_time(tmp_path: Path) -> None:
    text, _ = _info(tmp_path, RUN_TIME, "-S")
    assert _line(text, "prog.c:10:").endswith(
        "shadow [1][0] of a 16 x n double array: size known at run time")
    assert _line(text, "prog.c:7:").endswith("size known at run time")


def test_info_while_building(tmp_path: Path) -> None:
    text, exe = _info(tmp_path, RUN_TIME)
    assert exe.exists() and "prog.c:3:13: info: nodes p[*]" in text


def test_no_remarks_without_info(tmp_path: Path) -> None:
    (tmp_path / "prog.c").write_text(CONSTANT)
    r = run_xmpacc("-S", "prog.c", "-o", "prog", cwd=tmp_path)
    assert r.returncode == 0 and r.stderr == ""


@pytest.mark.parametrize("text, expected", [
    ("31", 31), ("(255)-(0)+1", 256), ("4 * (3 + 2)", 20), ("7 / 2", 3), ("-7 / 2", -3), ("-7 % 3", -1),
    ("N", None), ("1.5", None), ("1 << 3", None), ("", None), ("7 / 0", None),
])
def test_constant_values(text: str, expected: int | None) -> None:
    assert value(text) == expected


def test_combined_directives_and_static_desc(tmp_path: Path) -> None:
    """tests/omni/cg/cg.c (global-view §8a): a combined directive gets the remarks of one
    directive per attribute, each at its attribute's keyword; static_desc says it has
    nothing to do for file-scope objects, and that matvec's aligned parameters keep their
    descriptors from call to call (tests/golden/omni_cg.info)."""
    r = run_xmpacc("--info", "-S", "-DNPROCS=4", "tests/omni/cg/cg.c", "-o", str(tmp_path / "cg"), cwd=REPO)
    assert r.returncode == 0, r.stderr
    got = "".join(line + "\n" for line in r.stderr.splitlines() if ": info: " in line)
    golden = GOLDEN / "omni_cg.info"
    if UPDATE:
        golden.write_text(got)
    assert got == golden.read_text()
    cg = "tests/omni/cg/cg.c"
    assert _line(got, f"{cg}:19:13:").endswith(
        "template, distribute(block, block) onto p :: t(0:NA-1, 0:NA-1): 256 x 256 indices (0..255, 0..255); "
        "descriptor _xmpacc_t_t")
    assert "dim 1 block over p dim 1" in _line(got, f"{cg}:19:23:")
    assert _line(got, f"{cg}:25:").endswith(
        "static_desc :: t, x, z, pv, q, r, wr: descriptors of t, x, z, pv, q, r, wr are file-lifetime "
        "already; nothing to do")
    assert "the parameters v, res are kept from call to call" in _line(got, f"{cg}:91:")
