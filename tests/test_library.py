"""The XMP library (global-view §9) and what needs more than a serial oracle: the mapping
inquiry functions against the values the XMP specification gives for each number of
nodes, a program that uses MPI next to the directives, descriptors released by
block-scope declarations, ``void main``, and XMP-ACC on dynamic data (host backend).

Programs live in tests/library/; each is compiled once per test run.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import once, run_mpi, run_xmpacc, same_output
from test_programs import program_builds

LIBRARY = Path(__file__).parent / "library"

pytestmark = pytest.mark.mpi

N = 23   # the templates of inquiry.c
XMP_BLOCK, XMP_CYCLIC, XMP_GBLOCK, XMP_NOT_DISTRIBUTED, XMP_ENTIRE_NODES = 2101, 2102, 2103, 2100, 2000


@pytest.fixture(scope="module")
def exe(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """name -> executable, built on first use and once per test run."""
    def get(src: Path) -> Path:
        def make(tmp: Path) -> Path:
            out = tmp / src.stem
            r = run_xmpacc(str(src), "-o", str(out))
            assert r.returncode == 0, f"xmpacc {src.name} failed:\n{r.stderr}"
            return out

        return once(tmp_path_factory, f"library-{src.parent.name}-{src.stem}", make)
    return get


def expected_inquiry(p: int) -> dict[str, tuple[int, int]]:
    """What inquiry.c must print on node 0 of p nodes: name -> (value, return code)."""
    block = -(-N // p)
    ok = {
        # node arrays and templates count their dimensions in Fortran order, as Omni does:
        # q[*][1] is q(1,*), tp(0:9, 0:19) has dimension 1 0:9 (xmpacc_library.c)
        "nodes_ndims(p)": 1, "nodes_ndims(q)": 2, "nodes_size(q,1)": 1, "nodes_size(q,2)": p,
        "nodes_index(p,1)": 1, "xmpc_nodes_index(p,1)": 0, "nodes_attr(p)": XMP_ENTIRE_NODES,
        "nodes_equiv(p) is NULL": 1, "sum of xmpc_nodes_index(q,2)": p * (p - 1) // 2,
        "template_fixed(t)": 1, "template_fixed(tg) before template_fix": 0, "template_ndims(tp)": 2,
        "template_lbound(tc,1)": 0, "template_ubound(tc,1)": N - 1,
        "template_ubound(tp,1)": 9, "template_ubound(tp,2)": 19,
        "dist_format(t,1)": XMP_BLOCK, "dist_format(tc,1)": XMP_CYCLIC,
        "dist_format(tp,1)": XMP_NOT_DISTRIBUTED, "dist_format(tp,2)": XMP_BLOCK,
        "dist_blocksize(t,1)": block, "dist_blocksize(tc,1)": 2,
        "dist_axis(tp,1)": 0, "dist_axis(tp,2)": 1, "dist_nodes(t) is p": 1,
        "align_axis(a,1)": 1, "align_axis(a,2)": 0, "align_axis(r,1)": 2, "align_offset(a,1)": 0,
        "align_replicated(r,1)": 1, "align_replicated(r,2)": 0, "align_template(a) is t": 1,
        "array_ndims(a)": 2, "array_lbound(a,1)": 0, "array_ubound(a,1)": N - 1, "array_ubound(a,2)": 3,
        "array_lshadow(a,1)": 1, "array_ushadow(a,1)": 2, "array_lshadow(a,2)": 0,
        "array_lsize(a,1)": min(block, N), "array_lsize(a,2)": 4, "array_gtol(a,1,0)": 1,
        "array_lda(a)": 4, "array_laddr(a) is a": 1, "array_type_size(a)": 8, "array_type_size(r)": 2,
        "sum of array_lsize(c,1)": N, "gtol mismatches": 0,
        "template_fixed(tg)": 1, "template_ubound(tg,1)": N - 1, "dist_format(tg,1)": XMP_GBLOCK,
        "dist_gblockmap(tg,1)": N - 2 * (p - 1), "array_ndims(g)": 1,
        "array_lsize(g,1)": N if p == 1 else 2, "array_type_size(g)": 4,
    }
    out = {name: (value, 0) for name, value in ok.items()}
    # cyclic(2): index 3 is in block 1, on node 1 % p; node 0 holds it only when p == 1
    out["array_gtol(c,1,3)"] = (3, 0) if p == 1 else (0, -2)
    out |= {"template_lbound(tg) before template_fix": (0, -3), "dist_gblockmap(t,1)": (0, -2),
            "array_ndims(NULL)": (0, -1), "nodes_ndims(template)": (0, -1), "template_ndims(array)": (0, -1),
            "array_lbound(a,3)": (0, -2), "array_lbound(a,0)": (0, -2), "nodes_size(p,2)": (0, -2),
            "array_gtol(a,1,N)": (0, -2), "array_ndims(g) before xmp_malloc": (0, -1),
            "array_ndims(g) after xmp_free": (0, -1)}
    return out


_LINE = re.compile(r"(.*) = (-?\d+) \(rc (-?\d+)\)")


@pytest.mark.parametrize("nprocs", [1, 2, 3, 4])
def test_inquiry_functions(exe, nprocs: int) -> None:  # type: ignore[no-untyped-def]
    r = run_mpi(nprocs, exe(LIBRARY / "inquiry.c"), timeout=60)
    assert r.returncode == 0, r.stderr
    got = {}
    for line in r.stdout.splitlines():
        m = _LINE.fullmatch(line)
        assert m, f"unexpected line {line!r}"
        got[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    assert got == expected_inquiry(nprocs)


@pytest.mark.parametrize("nprocs", [1, 2, 3, 4])
def test_mpi_next_to_xmp(exe, nprocs: int) -> None:  # type: ignore[no-untyped-def]
    r = run_mpi(nprocs, exe(LIBRARY / "mpi_interop.c"), timeout=60)
    assert r.returncode == 0, r.stderr
    task = (nprocs + 1) // 2
    assert r.stdout == (f"initialized 1  world 0 of {nprocs}  sum 780.0  task size {task}  "
                        f"ones {task * task}  provided >= funneled 1\n")


def test_mpi_program_without_mpi_found_is_a_clear_error(tmp_path: Path) -> None:
    src = tmp_path / "m.c"
    src.write_text("#include <mpi.h>\n#pragma xmp nodes p[*]\nint main(void) { return 0; }\n")
    r = run_xmpacc(str(src), "-o", str(tmp_path / "m"), env={"XMPACC_MPICC": "/nonexistent/mpicc",
                                                             "XMPACC_PYTHON": "/nonexistent/python",
                                                             "PATH": "/usr/bin:/bin"})
    assert r.returncode == 1 and "no MPI installation was found" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("nprocs", [3])
def test_block_scope_descriptors_are_all_released(tmp_path_factory: pytest.TempPathFactory,
                                                  nprocs: int) -> None:
    """local_templates.c makes nodes, templates and arrays in a function run 300 times
    (early return, break, goto): at the end only the file scope's p, t and a are left; it
    prints what its serial build prints (tests/test_programs.py's run on 3 processes)."""
    exe, expected = program_builds(tmp_path_factory)["local_templates.c"]
    r = run_mpi(nprocs, exe, env={"XMPACC_STATS": "1"}, timeout=120)
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, expected)
    stats = [json.loads(line.split(":", 1)[1]) for line in r.stderr.splitlines()
             if line.startswith("xmpacc-stats:")]
    assert len(stats) == nprocs and all(s["descriptors"] == 3 for s in stats), stats


def test_void_main_exits_with_zero(tmp_path: Path) -> None:
    src = tmp_path / "v.c"
    src.write_text('#include <stdio.h>\n#include <xmp.h>\n#pragma xmp nodes p[*]\n'
                   'void main()\n{\n    if (xmpc_node_num() == 0)\n'
                   '        printf("nodes %d\\n", xmp_num_nodes());\n}\n')
    r = run_xmpacc(str(src), "-o", str(tmp_path / "v"))
    assert r.returncode == 0, r.stderr
    run = run_mpi(2, tmp_path / "v", timeout=60)
    assert (run.returncode, run.stdout) == (0, "nodes 2\n"), run.stderr


@pytest.mark.parametrize("nprocs", [1, 3])
def test_acc_on_dynamic_data(exe, nprocs: int) -> None:  # type: ignore[no-untyped-def]
    r = run_mpi(nprocs, exe(LIBRARY / "acc_dynamic.c"), env={"XMPACC_DEVICE": "host"}, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "sum = 2376.0\n"   # sum over i = 1..48 of 2 i + 0.5


@pytest.mark.parametrize("nprocs", [2, 4])
def test_2d_pointer_subscripted_as_an_array(exe, nprocs: int) -> None:  # type: ignore[no-untyped-def]
    """double *w aligned [i][j], reflect of its 2-D shadow, host and acc loops."""
    r = run_mpi(nprocs, exe(LIBRARY / "pointer_2d.c"), env={"XMPACC_DEVICE": "host"}, timeout=60)
    assert r.returncode == 0, r.stderr
    expected = sum(4 * (10 * i + j) for i in range(1, 8) for j in range(1, 6))
    assert r.stdout == f"sum = {expected:.1f}\n"
