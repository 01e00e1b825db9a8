"""Coarrays (global-view §11) under mpirun on the host backend.

The programs of tests/coarray_programs/ cannot be built by plain cc (``a[i]:[k]`` is not
C), so each one's expected output is computed here from the number of images.  Run-time
mistakes must name the line and the values involved.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import REPO, once, run_mpi, run_xmpacc
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_errors import Compile, assert_clean_failure, assert_error_at, compile_, place  # noqa: F401

from xmpacc import __version__

PROGRAMS = Path(__file__).parent / "coarray_programs"
HOST = {"XMPACC_DEVICE": "host"}
GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("XMPACC_UPDATE_GOLDEN") == "1"


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


def types(n: int) -> str:
    """coarray_types.c: image k's structures, strided 2-D sections from its left neighbour w."""
    out = []
    for k in range(n):
        w = (k - 1) % n
        out.append(f"{k}: p=({k + 2:.1f} {-k:.1f} {10 * k + 2}) y={-k:.1f} tags=7 7 "
                   f"row={100 * w + 10} {100 * w + 11} {100 * w + 12} col={100 * w + 2} {100 * w + 12} "
                   f"who=img{k} fill={10 * k} {10 * k} hits={k * k}\n")
    return "".join(out)


def dummies(n: int) -> str:
    """coarray_dummies.c: image k got its right neighbour r's w[0] + w[1] through a coarray
    dummy argument; its last element is what its left neighbour put there."""
    return "".join(f"image {k}: got {20.0 * ((k + 1) % n) + 1:.1f} last {-float((k - 1) % n + 1):.1f} "
                   f"squares {sum(j * j for j in range(n))}\n" for k in range(n))


EXPECTED: dict[str, Callable[[int], str]] = {"coarray_ring.c": ring, "coarray_sync.c": sync,
                                             "coarray_types.c": types, "coarray_dummies.c": dummies}
COUNTS: dict[str, tuple[int, ...]] = {"coarray_ring.c": (1, 3, 4), "coarray_sync.c": (1, 2, 3),
                                      "coarray_types.c": (2,), "coarray_dummies.c": (1, 3)}


class _Built(dict[str, Path]):
    """program -> executable, each built on first use and once per test run."""

    def __init__(self, tmp_path_factory: pytest.TempPathFactory) -> None:
        super().__init__()
        self.factory = tmp_path_factory

    def __missing__(self, name: str) -> Path:
        assert name in EXPECTED, name

        def make(tmp: Path) -> Path:
            exe = tmp / Path(name).stem
            r = run_xmpacc(str(PROGRAMS / name), "-o", str(exe))
            assert r.returncode == 0, f"xmpacc {name} failed:\n{r.stderr}"
            return exe

        self[name] = once(self.factory, f"coarrays-{Path(name).stem}", make)
        return self[name]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return _Built(tmp_path_factory)


def test_every_program_has_its_expectation() -> None:
    """(device_*.c, coarrays on the device, are tests/test_device_coarrays.py's.)"""
    assert {p.name for p in PROGRAMS.glob("*.c") if not p.name.startswith("device_")} == set(EXPECTED)


@pytest.mark.mpi
@pytest.mark.parametrize("name,n", [pytest.param(name, n, id=f"{Path(name).stem}-np{n}")
                                    for name in EXPECTED for n in COUNTS[name]])
def test_program(built: dict[str, Path], name: str, n: int) -> None:
    r = run_mpi(n, built[name], timeout=120, env=HOST)
    assert r.returncode == 0, r.stderr
    assert r.stdout == EXPECTED[name](n)


@pytest.mark.mpi
@pytest.mark.parametrize("name", [n for n in EXPECTED if 1 in COUNTS[n]])
def test_one_image_needs_no_window(built: dict[str, Path], name: str) -> None:
    """An MPI that cannot make a window over the program's memory (Open MPI under one
    process, docs/clusters.md; XMPACC_COARRAY_WINDOWS=0 plays it here): one image's puts,
    gets and locks of its own copies are plain memory accesses, and the program prints what
    it prints with windows."""
    r = run_mpi(1, built[name], timeout=120, env={**HOST, "XMPACC_COARRAY_WINDOWS": "0"})
    assert r.returncode == 0, r.stderr
    assert r.stdout == EXPECTED[name](1)


@pytest.mark.mpi
def test_two_images_without_windows_say_what_is_missing(built: dict[str, Path]) -> None:
    """The same MPI under two processes: the first access of another image says what is
    missing.  (One run: it was the same command in each case of the test above.)"""
    r = run_mpi(2, built["coarray_ring.c"], timeout=120, env={**HOST, "XMPACC_COARRAY_WINDOWS": "0"})
    assert r.returncode != 0 and "could not make a window over it" in r.stderr and "OMPI_MCA_osc" in r.stderr
    assert "Traceback" not in r.stderr


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


# coarrays on the device (XcalableACC §5a, tests/test_device_coarrays.py)
DEVICE_HEAD = "#include <xmp.h>\nint a[8]:[*];\nint c[8]:[*];\nint b[8];\n#pragma acc declare create(a, b)\n"
DEVICE_RUNTIME = [
    ("device-image-out-of-range", "#pragma acc host_data use_device(a)\n    a[0]:[xmp_num_images()] = 1;", 2,
     "prog.c:10: error: image [2] of coarray 'a' does not exist: there are 2 images (0..1)"),
    ("device-section-out-of-bounds",
     "int n = 9;\n#pragma acc host_data use_device(a, b)\n    b[0:4] = a[n:4]:[0];", 1,
     "prog.c:11: error: a[9:4] reaches index 9, out of bounds of dimension 0 (0..7)"),
    ("device-no-declare", "#pragma acc host_data use_device(c)\n    c[0]:[0] = 1;", 1,
     "prog.c:9: error: 'c' in use_device is not present on the device"),
]


@pytest.mark.mpi
@pytest.mark.parametrize("head,name,body,nprocs,message",
                         [(RUN_HEAD, *c) for c in RUNTIME] + [(DEVICE_HEAD, *c) for c in DEVICE_RUNTIME],
                         ids=[c[0] for c in RUNTIME + DEVICE_RUNTIME])
def test_runtime_error_names_the_line_and_the_values(tmp_path: Path, head: str, name: str, body: str,
                                                     nprocs: int, message: str) -> None:
    src = tmp_path / "prog.c"
    src.write_text(head + f"int main(void)\n{{\n    int x = 0;\n    {body}\n    return x;\n}}\n")
    exe = tmp_path / "prog"
    r = run_xmpacc(str(src), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    r = run_mpi(nprocs, exe, timeout=60, env=HOST)
    assert r.returncode != 0
    assert message in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


# ---------------------------------------------------------------- generated host C


@pytest.mark.parametrize("name", ["coarray_ring", "coarray_sync", "coarray_types", "coarray_dummies"])
def test_golden_host_c(tmp_path: Path, name: str) -> None:
    """The lowered coarray accesses and local-view directives (tests/golden/<name>.host.c)."""
    r = run_xmpacc("-S", f"tests/coarray_programs/{name}.c", "-o", str(tmp_path / name), cwd=REPO)
    assert r.returncode == 0, r.stderr
    text = (tmp_path / f"{name}.host.c").read_text()
    golden = GOLDEN / f"{name}.host.c"
    if UPDATE:
        golden.write_text(text)

    def body(t: str) -> str:
        first, _, rest = t.partition("\n")
        return rest if __version__ in first else t
    assert body(text) == body(golden.read_text()), \
        f"generated host C differs from tests/golden/{name}.host.c (XMPACC_UPDATE_GOLDEN=1 rewrites it)"


# ---------------------------------------------------------------- compile-time mistakes

HEAD = """\
#include <xmp.h>
#pragma xmp nodes p[*]
#pragma xmp template t[8]
#pragma xmp distribute t[block] onto p
int a[10]:[*];
int c[4]:[2][*];
int q:[*];
int y[4];
xmp_lock_t lk:[*];
int m[2][3]:[*];
"""


def body(text: str) -> str:
    return HEAD + f"int main(void)\n{{\n    int x = 0, loc[10];\n{text}\n    return x;\n}}\n"


def calling(function: str, text: str) -> str:
    """``body(text)`` with ``function`` declared before main."""
    return body(text).replace("int main", f"{function}\nint main", 1)


MISTAKES = [
    ("initializer", HEAD + "int @z[3]:[*] = {1, 2, 3};\nint main(void) { return 0; }\n",
     "coarray 'z' cannot have an initializer: assign its elements in main"),
    ("star-not-last", HEAD + "int @w[3]:[*][2];\nint main(void) { return 0; }\n",
     "the last codimension of a coarray must be '*'"),
    ("dummy-two-codimensions", HEAD + "void f(int @b[4]:[2][*]) { }\nint main(void) { return 0; }\n",
     "a coarray dummy argument with 2 codimensions is not supported yet: declare 'b' with '[*]'"),
    ("dummy-scalar", HEAD + "void f(int @b:[*]) { }\nint main(void) { return 0; }\n",
     "a coarray dummy argument that is not an array is not supported yet"),
    ("dummy-star-not-last", HEAD + "void f(int @b[]:[*][2]);\nint main(void) { return 0; }\n",
     "the last codimension of a coarray must be '*'"),
    ("dummy-given-a-local-array", calling("void f(int n, int b[]:[*]) { }", "    f(1, @loc);"),
     "argument 2 of 'f' is the coarray dummy argument 'b': it must be a coarray; pass one by its name"),
    ("dummy-given-part-of-a-coarray", calling("void f(int b[]:[*]);", "    f(@a + 2);"),
     "argument 1 of 'f' is the coarray dummy argument 'b': a part of a coarray is not supported yet"),
    ("block-scope", body("    int @st[2]:[*];"), "a coarray must be declared at file scope"),
    ("block-scope-static", body("    static int @st[2]:[*];"),
     "a static coarray in a function is not supported yet"),
    ("not-a-coarray", body("    x = @y[0]:[1];"), "'y' is not a coarray"),
    ("too-many-coindices", body("    x = @a[0]:[1][2];"),
     "coarray 'a' has 1 codimension(s) but 2 image index(es)"),
    ("too-few-coindices", body("    x = @c[0]:[1];"),
     "coarray 'c' has 2 codimension(s) but 1 image index(es)"),
    ("negative-image", body("    x = @a[0]:[-1];"), "image index -1 of coarray 'a' is negative"),
    ("partial-reference", body("    x = @m[1]:[0];"), "give every subscript, or a section"),
    ("section-in-expression", body("    x = @a[0:3]:[1] + 1;"),
     "a coindexed section of 'a' inside an expression is not supported yet"),
    ("address", body("    x = *&@a[0]:[1];"), "the address of a coindexed reference is not supported yet"),
    ("increment", body("    @a[0]:[1]++;"), "'++' on a coindexed reference is not supported yet"),
    ("shape-mismatch", body("    a[0:4]:[1] = loc[@0:5];"),
     "shapes do not conform: 'a[0:4]' has shape [4] but 'loc' has shape [5]"),
    ("put-to-member",
     HEAD + "struct s { int v; } sc[2]:[*];\nint main(void)\n{\n    @sc[1]:[0].v = 2;\n    return 0;\n}\n",
     "a put to a part of a coindexed element (a member) is not supported yet"),
    ("put-expression", body("    a[0:4]:[1] = @loc[0:4] * 2;"),
     "an expression of sections is not supported yet"),
    ("lock-not-a-lock", body("#pragma xmp lock (@q:[0])"), "'q' is not a coarray of xmp_lock_t"),
    ("lock-undeclared", body("#pragma xmp unlock (@m:[0])"), "'m' is not"),
    ("post-template", body("#pragma xmp post (@t[0], 1)"), "'post' needs a node reference"),
    ("coarray-directive-in-function", body("#pragma xmp @coarray loc : [*]"), "not supported yet"),
    ("sync-all-at-file-scope", HEAD + "#pragma xmp @sync_all\nint main(void) { return 0; }\n",
     "the 'sync_all' directive must be inside a function"),
    ("device",
     body("#pragma acc parallel loop\n    for (int i = 0; i < 4; i++)\n        loc[i] = @a[i]:[0];"),
     "coarray syntax in code that runs on the device: a coarray put or get is a host statement"),
    ("device-xmp-loop",
     body("#pragma xmp loop on t[i] acc\n    for (int i = 0; i < 8; i++)\n        x += @a[i]:[0];"),
     "coarray syntax in code that runs on the device: a coarray put or get is a host statement"),
    ("host-code-in-data-region", body("#pragma acc data copy(loc)\n    {\n        x = a[0]:[0];\n    }\n"
                                      "    x = @y[0]:[0];"), "'y' is not a coarray"),
    ("no-directive-in-file",
     "int b[10]:[*];\nint main(void)\n{\n    static int @a[10]:[*];\n    return 0;\n}\n",
     "a static coarray in a function is not supported yet"),   # translated without a #pragma xmp
    ("device-data", body("#pragma acc data copy(loc, @a)\n    {\n    }"),
     "coarray 'a' in 'copy' of 'acc data': a coarray gets its device copy only from "
     "'#pragma acc declare create(a)' (or copyin) at file scope"),
]


def device_body(text: str, declare: str = "#pragma acc declare create(a)\n") -> str:
    return HEAD + declare + f"int main(void)\n{{\n    int x = 0, k = 0, b[10];\n{text}\n    return x;\n}}\n"


# coarrays on the device (XcalableACC §5a, tests/test_device_coarrays.py)
WHERE = "a coarray gets its device copy only from '#pragma acc declare create(a)' (or copyin) at file scope"
DEVICE_MISTAKES = [
    ("enter-data", device_body("#pragma acc enter data copyin(@a)"),
     f"coarray 'a' in 'copyin' of 'acc enter data': {WHERE}"),
    ("exit-data", device_body("#pragma acc exit data delete(@a)"),
     "coarray 'a' in 'delete' of 'acc exit data'"),
    ("compute-copy", device_body("#pragma acc parallel loop copy(@a)\n    for (int i = 0; i < 10; i++)\n"
                                 "        a[i] = i;"), "coarray 'a' in 'copy' of 'acc parallel loop'"),
    ("block-declare", device_body("#pragma acc declare create(@a)", declare=""),
     "coarray 'a' in 'create' of 'acc declare'"),
    ("file-declare-copy", HEAD + "#pragma acc declare copy(@a)\nint main(void) { return 0; }\n",
     "coarray 'a' in 'copy': " + WHERE),
    ("file-declare-section", HEAD + "#pragma acc declare create(@a[0:5])\nint main(void) { return 0; }\n",
     "a coarray's device copy is the whole coarray: 'create(a)', not a section"),
    ("replicate", device_body("#pragma xmp acc replicate (@a)\n    {\n    }"),
     "coarray 'a' in 'acc replicate'"),
    ("device-name-in-value",
     device_body("#pragma acc host_data use_device(a, b)\n    a[0]:[k] = @b[1] + 1;"),
     "'b' is in use_device here: it is a device address, which host code cannot read"),
    ("device-name-assigned", device_body("#pragma acc host_data use_device(a, b)\n    @b[1] = a[0]:[k] + 1;"),
     "'b' is in use_device here: it is a device address, which host code cannot read or write"),
    ("extern", "extern int e[4]:[*];\n#pragma acc declare create(@e)\nint main(void) { return 0; }\n",
     "coarray 'e' is declared 'extern' here: put its 'acc declare create' in the file that defines it"),
    ("routine", HEAD + "#pragma acc routine seq\nint f(int i)\n{\n    return @a[i]:[0];\n}\n"
                "int main(void) { return 0; }\n",
     "coarray syntax in code that runs on the device: a coarray put or get is a host statement"),
    ("scalar-use-device", device_body("#pragma acc host_data use_device(@q)\n    q:[k] = 1;",
                                      declare="#pragma acc declare create(a, q)\n"),
     "'q' is not an array or a pointer; use_device takes arrays"),
]


@pytest.mark.parametrize("marked, fragment",
                         [pytest.param(m, f, id=i) for i, m, f in MISTAKES]
                         + [pytest.param(m, f, id=f"device-{i}") for i, m, f in DEVICE_MISTAKES])
def test_mistake(marked: str, fragment: str, compile_: Compile, tmp_path: Path) -> None:  # noqa: F811 - the fixture imported above
    source, line, col = place(marked)
    proc, src, _out = compile_(source)
    assert_clean_failure(proc, tmp_path, {src.name})
    assert_error_at(proc.stderr, src, line, col, fragment)


@pytest.mark.mpi
def test_dummy_given_part_of_a_coarray_in_another_file(tmp_path: Path) -> None:
    """The call is compiled without the dummy's declaration: the runtime names the coarray."""
    (tmp_path / "main.c").write_text("#include <xmp.h>\n#pragma xmp nodes p[*]\nint a[8]:[*];\n"
                                     "void put(int v[]);\n"
                                     "int main(void)\n{\n    put(&a[2]);\n    return 0;\n}\n")
    (tmp_path / "put.c").write_text("void put(int v[]:[*])\n{\n    v[0]:[0] = 1;\n}\n")
    r = run_xmpacc("main.c", "put.c", "-o", "prog", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = run_mpi(1, tmp_path / "prog", timeout=60, env=HOST)
    assert r.returncode != 0 and "Traceback" not in r.stderr, r.stderr
    assert "put.c:3: error: a coarray dummy argument refers to element 2 of coarray 'a': a part of a " \
           "coarray is not supported yet; pass the whole coarray" in r.stderr, r.stderr


@pytest.mark.mpi
def test_collective_error_frees_the_windows_first(tmp_path: Path) -> None:
    """Every node stops at the same error: the coarray windows are freed before MPI ends,
    so that only the error is printed (no MPI warnings about windows left open)."""
    src = tmp_path / "prog.c"
    src.write_text("#include <xmp.h>\n#pragma xmp nodes p[3]\nint a[4]:[*];\nint main(void) { return 0; }\n")
    exe = tmp_path / "prog"
    r = run_xmpacc(str(src), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    r = run_mpi(2, exe, timeout=60, env=HOST)
    assert r.returncode == 1
    assert r.stderr.strip() == ("prog.c:2: error: nodes 'p' has 3 nodes, but the job has 2 processes; "
                                "run it with mpirun -np 3"), r.stderr


# ---------------------------------------------------------------- the front end's rewrite

_C_TEXT = st.text(alphabet="ab[]():?*;{}= \n0'\"", max_size=60)


@settings(max_examples=300, deadline=None)
@given(_C_TEXT)
@example(":[*\n]")   # a '*' group's line break was dropped
def test_rewrite_leaves_text_without_coarrays_alone(text: str) -> None:
    """Only a ':' followed by '[' is a coarray part; everything else is copied as it is."""
    from xmpacc.frontend.coarrays import rewrite_coarrays
    out = rewrite_coarrays(text)
    if not any(text[k] == ":" and text[k + 1:].lstrip().startswith("[") for k in range(len(text))):
        assert out == text
    assert out.count("\n") == text.count("\n")   # line numbers never move


def test_rewrite_examples() -> None:
    from xmpacc.frontend.coarrays import rewrite_coarrays
    assert rewrite_coarrays("int a[10]:[2][*];") == "int a[10][_xmpacc_coindex(2,_XMPACC_STAR)];"
    assert rewrite_coarrays("x = s:[k] + (c ? 1 : 2);") == "x = s[_xmpacc_coindex(k)] + (c ? 1 : 2);"
    assert rewrite_coarrays("a[0:5]:[\n k];") == "a[0:5][_xmpacc_coindex(\n k)];"
    assert rewrite_coarrays('s = ":[k]";\n#pragma xmp lock (l:[0])\n') \
        == 's = ":[k]";\n#pragma xmp lock (l:[0])\n'
