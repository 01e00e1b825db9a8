"""Coarrays (global-view §11) under mpirun on the host backend.

The programs of tests/coarray_programs/ cannot be built by plain cc (``a[i]:[k]`` is not
C), so each one's expected output is computed here from the number of images.  Run-time
mistakes must name the line and the values involved.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import run_mpi, run_xmpacc

PROGRAMS = Path(__file__).parent / "coarray_programs"
HOST = {"XMPACC_DEVICE": "host"}


def ring(n: int) -> str:
    """coarray_ring.c: image k holds what its left neighbour w put (rows 0 and 2 of column 3
    of d come from its right neighbour r)."""
    out = []
    for k in range(n):
        w, r = (k - 1) % n, (k + 1) % n
        a = [-1] * 12
        for j in range(6):
            a[2 * j] = 100 * w + j
        a[9] = a[10] = 42
        a[11] = w
        d = [[0.0] * 4 for _ in range(3)]
        d[1] = [w + 0.25 * j for j in range(4)]
        d[0][3], d[2][3] = -(r + 1) * 1, -(r + 1) * 2
        total = sum((i + 1) * d[i][j] for i in range(3) for j in range(4))
        back = [a[10], a[8], a[6], a[4]]
        out.append(f"image {k}: s={10 * w + 1} a={' '.join(map(str, a))} back={' '.join(map(str, back))} "
                   f"d={total:.2f} last={a[11]}\n")
    return "".join(out)


def sync(n: int) -> str:
    """coarray_sync.c: the token, the counters, the 2-D coindex and the pair."""
    text = f"token {n}\ncounter {5 * n} total {5 * sum(range(n))}\ngrid {n * (n - 1)}\n"
    return text + ("pair done\n" if n > 1 else "")


EXPECTED: dict[str, Callable[[int], str]] = {"coarray_ring.c": ring, "coarray_sync.c": sync}
COUNTS = (1, 2, 3, 4)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("coarrays")
    out = {}
    for name in EXPECTED:
        exe = tmp / Path(name).stem
        r = run_xmpacc(str(PROGRAMS / name), "-o", str(exe))
        assert r.returncode == 0, f"xmpacc {name} failed:\n{r.stderr}"
        out[name] = exe
    return out


def test_every_program_has_its_expectation() -> None:
    assert {p.name for p in PROGRAMS.glob("*.c")} == set(EXPECTED)


@pytest.mark.mpi
@pytest.mark.parametrize("name,n", [pytest.param(name, n, id=f"{Path(name).stem}-np{n}")
                                    for name in EXPECTED for n in COUNTS])
def test_program(built: dict[str, Path], name: str, n: int) -> None:
    r = run_mpi(n, built[name], timeout=120, env=HOST)
    assert r.returncode == 0, r.stderr
    assert r.stdout == EXPECTED[name](n)


# ---------------------------------------------------------------- run-time mistakes

RUN_HEAD = "#include <xmp.h>\n#pragma xmp nodes p[*]\nint a[8]:[*];\nint b[4];\n"
RUNTIME = [
    ("image-out-of-range", "int k = xmp_num_images(); a[0]:[k] = 1;", 2,
     "prog.c:8: error: image [2] of coarray 'a' does not exist: there are 2 images (0..1)"),
    ("get-image-out-of-range", "int k = 5; b[0] = a[1]:[k];", 2,
     "prog.c:8: error: image [5] of coarray 'a' does not exist"),
    ("shape-mismatch", "int n = 3; a[0:4]:[0] = b[0:n];", 1,
     "prog.c:8: error: shapes do not conform: 'a[0:4]' has shape [4] but 'b' has shape [3]"),
    ("section-out-of-bounds", "int n = 9; b[0:4] = a[n:4]:[0];", 1,
     "prog.c:8: error: a[9:4] reaches index 9, out of bounds of dimension 0 (0..7)"),
    ("post-tag", "int t = 300;\n#pragma xmp post (p[0], t)\n", 1,
     "prog.c:9: error: the tag of 'post' is 300; tags must be in 0..255"),
]


@pytest.mark.mpi
@pytest.mark.parametrize("name,body,nprocs,message", RUNTIME, ids=[c[0] for c in RUNTIME])
def test_runtime_error_names_the_line_and_the_values(tmp_path: Path, name: str, body: str, nprocs: int,
                                                     message: str) -> None:
    src = tmp_path / "prog.c"
    src.write_text(RUN_HEAD + f"int main(void)\n{{\n    int x = 0;\n    {body}\n    return x;\n}}\n")
    exe = tmp_path / "prog"
    r = run_xmpacc(str(src), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    r = run_mpi(nprocs, exe, timeout=60, env=HOST)
    assert r.returncode != 0
    assert message in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
