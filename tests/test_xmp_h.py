"""xmp.h as Omni's is to its programs (issue 30): it includes <mpi.h> and declares the
whole XMP C API, every declared function links, and a translated file sees the API even
when it does not include xmp.h (the preprocessor forces runtime/include/xmpacc_api.h in).

Programs live in tests/xmp_h/; the global-view one is compared with its serial build, the
coarray one (not C) with what it must print.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from conftest import REPO, once, run_mpi, run_xmpacc, same_output, serial_output

from xmpacc.driver import Options, translate
from xmpacc.frontend.libc_names import LibcNames
from xmpacc.frontend.preprocess import preprocess, runtime_include_dir
from xmpacc.mpi_flags import mpi_header

PROGRAMS = Path(__file__).parent / "xmp_h"
HOST = {"XMPACC_DEVICE": "host"}

# What the issue names, XMP 1.4 ch. 7 and the local view's image control as functions.
REQUIRED = {
    "xmp_desc_of", "xmp_malloc", "xmp_free", "xmp_gather", "xmp_scatter", "xmp_pack", "xmp_unpack",
    "xmp_transpose", "xmp_matmul", "xmp_sort_up", "xmp_sort_down", "xmp_wtime", "xmp_wtick",
    "xmp_get_mpi_comm", "xmp_init_mpi", "xmp_finalize_mpi", "xmp_init", "xmp_finalize", "xmp_num_nodes",
    "xmp_node_num", "xmp_all_num_nodes", "xmp_all_node_num", "xmp_num_images", "xmp_this_image",
    "xmpc_this_image", "xmp_test_async", "xmp_exit", "xmp_sync_all", "xmp_sync_memory", "xmp_sync_image",
    "xmp_sync_images", "xmp_sync_images_all", "xmp_array_ndims", "xmp_nodes_index", "xmp_dist_format",
}
OPERATORS = {"xmp_desc_of"}   # resolved by the compiler, not a function


def declared_functions() -> list[str]:
    """Every function that xmp.h declares (itself or through xmpacc_api.h), in order."""
    include = REPO / "runtime" / "include"
    text = (include / "xmpacc_api.h").read_text() + (include / "xmp.h").read_text()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    names = re.findall(r"^[A-Za-z_][\w \t*]*?\b(xmpc?_\w+)\s*\(", text, flags=re.M)
    return list(dict.fromkeys(names))


@pytest.fixture(scope="module")
def exe(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """name -> executable, built on first use and once per test run."""
    def get(src: Path, *more: Path) -> Path:
        def make(tmp: Path) -> Path:
            r = run_xmpacc(str(src), *map(str, more), "-o", str(tmp / src.stem))
            assert r.returncode == 0, f"xmpacc {src.name} failed:\n{r.stderr}"
            return tmp / src.stem

        return once(tmp_path_factory, "-".join(["xmp_h", src.parent.name, src.stem, *(m.stem for m in more)]),
                    make)
    return get


def xmpacc_ok(tmp_path: Path, name: str, source: str, *options: str) -> subprocess.CompletedProcess[str]:
    """``xmpacc OPTIONS name`` in tmp_path, with ``source`` as the file; it must succeed."""
    (tmp_path / name).write_text(source)
    r = run_xmpacc(*options, name, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    return r


# ---------------------------------------------------------------- the header

def test_xmp_h_declares_the_whole_api() -> None:
    assert REQUIRED - OPERATORS <= set(declared_functions())
    assert "#include <mpi.h>" in (REPO / "runtime" / "include" / "xmp.h").read_text()


@pytest.mark.mpi
def test_every_declared_function_links(tmp_path: Path) -> None:
    """A program that takes the address of each function xmp.h declares: the link (with
    -z defs) fails on any that is only declared."""
    names = declared_functions()
    src = tmp_path / "every.c"
    src.write_text("#include <stdio.h>\n#include <xmp.h>\n#pragma xmp nodes p[*]\n"
                   "typedef void (*fn_t)(void);\n"
                   "static const fn_t every[] = {\n" + "".join(f"    (fn_t) {n},\n" for n in names) + "};\n"
                   "int main(void)\n{\n    int k, n = 0;\n"
                   "    for (k = 0; k < (int) (sizeof every / sizeof every[0]); k++)\n"
                   "        n += every[k] != 0;\n    printf(\"%d\\n\", n);\n    return 0;\n}\n")
    r = run_xmpacc(str(src), "-o", str(tmp_path / "every"))
    assert r.returncode == 0, r.stderr
    run = run_mpi(1, tmp_path / "every", timeout=60)
    assert (run.returncode, run.stdout) == (0, f"{len(names)}\n"), run.stderr


@pytest.mark.parametrize("text,header", [
    ("#include <xmp.h>\n", "<xmp.h>, which includes <mpi.h>"),
    ('  #  include "xmp.h"\n', "<xmp.h>, which includes <mpi.h>"),
    ("#include <stdio.h>\n#include <mpi.h>\n#include <xmp.h>\n", "<mpi.h>"),
    ("#include <xmpacc.h>\n#include <xmp_extra.h>\n", None),
    ("/* #include <xmp.h> */\nint x;\n", None),
])
def test_which_files_use_mpi(text: str, header: str | None) -> None:
    assert mpi_header(["int y;\n", text]) == header


# ---------------------------------------------------------------- every translated file

def test_api_is_declared_without_naming_a_header(tmp_path: Path) -> None:
    """The forced declarations add no #include to the generated C and move no line."""
    src = tmp_path / "f.c"
    src.write_text("#include <stdio.h>\nint n;\n#pragma xmp template t[q]\n")
    pre = preprocess(str(src), [])
    assert pre.system_includes == ["stdio.h"] and "xmp_sync_images_all" in pre.text
    assert pre.directives[0].loc.line == 3
    r = run_xmpacc("-c", str(src), "-o", str(tmp_path / "f.o"))
    assert f"{src}:3:24: error: 'q' undeclared" in r.stderr, r.stderr
    src.write_text("#include <xmp.h>\n#pragma xmp nodes p[*]\n")
    assert preprocess(str(src), []).system_includes == ["xmp.h"]   # not its <mpi.h>


@pytest.mark.parametrize("directive", [
    "#pragma xmp template t[0:xmp_num_nodes() * 4 - 1]",
    "#pragma xmp template t(0:xmp_all_num_nodes() + xmp_node_num() + xmpc_this_image())",
])
def test_library_call_in_a_directive_without_xmp_h(tmp_path: Path, directive: str) -> None:
    src = tmp_path / "d.c"
    src.write_text(f"#pragma xmp nodes p[*]\n{directive}\nint main(void) {{ return xmp_num_nodes(); }}\n")
    translate(str(src), Options(stop_after="declare"))


def test_own_compatible_declarations_and_xmp_h_after_the_api(tmp_path: Path) -> None:
    """A program that declares API functions itself (old style too), then includes xmp.h."""
    xmpacc_ok(tmp_path, "own.c", "double xmp_wtime();\nint xmp_num_nodes(void);\n"
              "void xmp_sync_all(int *status);\n#pragma xmp nodes p[*]\n#include <xmp.h>\n"
              "#pragma xmp template t[xmp_num_nodes()]\n"
              "int main(void) { xmp_sync_all(0); return xmp_wtime() < 0; }\n", "-c")


def test_generated_c_of_a_file_without_xmp_h(tmp_path: Path) -> None:
    """The lowering: the call stays a call of the library; the host C includes only what
    the user included (xmpacc.h declares the API)."""
    xmpacc_ok(tmp_path, "g.c", "#include <stdio.h>\n#pragma xmp nodes p[*]\n"
              "#pragma xmp template t[0:xmp_num_nodes() * 4 - 1]\n"
              "int main(void) { printf(\"%d\\n\", xmp_num_nodes()); return 0; }\n", "-S", "-o", "g")
    host = (tmp_path / "g.host.c").read_text()
    assert re.findall(r"^#include (\S+)", host, re.M) == ["<stdio.h>", '"xmpacc.h"', '"g.record.h"']
    assert '"t", 1, (const long long []){0, (xmp_num_nodes() * 4) - 1});' in host
    assert 'printf("%d\\n", xmp_num_nodes());' in host


def test_only_programs_that_include_xmp_h_or_mpi_h_get_mpi(tmp_path: Path) -> None:
    (tmp_path / "plain.c").write_text("#pragma xmp nodes p[*]\n"
                                      "int main(void) { return xmp_num_nodes() - 1; }\n")
    (tmp_path / "xmp.c").write_text("#include <xmp.h>\n" + (tmp_path / "plain.c").read_text())
    plain, xmp = (run_xmpacc("--showme", f"{n}.c", "-o", n, cwd=tmp_path) for n in ("plain", "xmp"))
    assert plain.returncode == xmp.returncode == 0, plain.stderr + xmp.stderr
    assert "-lmpi" not in plain.stdout and "-lmpi" in xmp.stdout


def test_preprocessed_output_is_the_users_with_the_macros(tmp_path: Path) -> None:
    """-E shows the file as the user wrote it (no forced declarations), with _XCALABLEMP, and
    with _XCALABLEACC only under Omni's -xacc (as Omni's xmpcc defines it)."""
    source = ("#pragma xmp nodes p[*]\nint f(void) { return xmp_num_nodes(); }\n"
              "int acc = _XCALABLEMP + _XCALABLEACC;\n")
    r = xmpacc_ok(tmp_path, "e.c", source, "-E", "-xacc")
    assert "xmp_sync_all" not in r.stdout and "xmp_num_nodes()" in r.stdout and "acc = 1 + 1;" in r.stdout
    r = xmpacc_ok(tmp_path, "e.c", source, "-E")
    assert "acc = 1 + _XCALABLEACC;" in r.stdout


def test_a_file_that_only_mentions_xcalablemp_is_translated(tmp_path: Path) -> None:
    """Omni translates every file: one without directives whose '#ifdef _XCALABLEMP' calls
    the XMP library and MPI gets the macro, the API and MPI, as under Omni."""
    (tmp_path / "main.c").write_text(
        '#include <stdio.h>\n#include <xmp.h>\nint main(void) {\n#ifdef _XCALABLEMP\n'
        '  int len; char name[MPI_MAX_PROCESSOR_NAME];\n  MPI_Get_processor_name(name, &len);\n'
        '  printf("xmp %d of %d\\n", xmp_node_num(), xmp_num_nodes());\n#else\n  printf("serial\\n");\n'
        '#endif\n  return 0;\n}\n')
    r = run_xmpacc("main.c", "-o", "main", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = run_mpi(2, tmp_path / "main")
    assert r.returncode == 0, r.stderr
    assert sorted(r.stdout.split("\n")) == ["", "xmp 1 of 2", "xmp 2 of 2"]


def test_libc_names_of_a_file_that_includes_xmp_h() -> None:
    """xmp.h's <mpi.h> needs MPI's -I, which the directive checker does not ask for: libc's
    names are still known, MPI's are of unknown type."""
    names = LibcNames("cc", [], ["stdlib.h", "limits.h", "xmp.h"], [runtime_include_dir()])
    assert (names.kind("abs"), names.kind("INT_MAX"), names.kind("MPI_MAX_PROCESSOR_NAME")) == \
        ("unknown", "integer", "unknown")
    assert LibcNames("cc", [], ["stdlib.h"], []).kind("MPI_COMM_WORLD") is None


# ---------------------------------------------------------------- programs

@pytest.mark.mpi
@pytest.mark.parametrize("nprocs", [1, 2, 4])
def test_library_without_xmp_h(exe, tmp_path: Path, nprocs: int) -> None:  # type: ignore[no-untyped-def]
    src = PROGRAMS / "no_xmp_h.c"
    r = run_mpi(nprocs, exe(src), timeout=60, env=HOST)
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, serial_output(src, tmp_path))


@pytest.mark.mpi
@pytest.mark.parametrize("nprocs", [1, 2, 3, 4])
def test_image_control_functions(exe, nprocs: int) -> None:  # type: ignore[no-untyped-def]
    r = run_mpi(nprocs, exe(PROGRAMS / "sync_functions.c"), timeout=60, env=HOST)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "".join(f"image {k}: 127\n" for k in range(nprocs)) + "status 0\n"


def intrinsics_expected() -> str:
    """What intrinsics_main.c prints: its arrays' checksums after each call."""
    n, m = 12, 4
    a = [(k * 7 + 3) % 13 for k in range(n)]
    idx = [(k * 5 + 1) % n for k in range(n)]
    mask = [v % 3 == 0 for v in a]
    scattered = [0] * n
    for k in range(n):
        scattered[idx[k]] = a[k]
    packed = [v for v, keep in zip(a, mask, strict=True) if keep]
    values = iter(a)
    x = [[i - 2.0 * j for j in range(m)] for i in range(m)]
    y = [[0.5 * i + j for j in range(m)] for i in range(m)]
    results = {"sort_up": sorted(a), "sort_down": sorted(a, reverse=True), "gather": [a[i] for i in idx],
               "scatter": scattered, "pack": packed + [0] * (n - len(packed)),
               "unpack": [next(values) if keep else -1 for keep in mask]}
    lines = [f"{name} {sum((k + 1) * v for k, v in enumerate(r))} bad 0\n" for name, r in results.items()]
    product = [[sum(x[i][k] * y[k][j] for k in range(m)) for j in range(m)] for i in range(m)]
    for name, z in (("transpose", [[x[j][i] for j in range(m)] for i in range(m)]), ("matmul", product)):
        total = sum((i * m + j + 1) * z[i][j] for i in range(m) for j in range(m))
        lines.append(f"{name} {total:.1f} bad 0\n")
    return "".join(lines) + f"malloc {sum((k + 1) * 2 * v for k, v in enumerate(a))}\n"


@pytest.mark.mpi
@pytest.mark.parametrize("nprocs", [1, 4])
def test_intrinsics_called_from_a_file_without_directives(exe, nprocs: int) -> None:  # type: ignore[no-untyped-def]
    program = exe(PROGRAMS / "intrinsics_main.c", PROGRAMS / "intrinsics_lib.c")
    r = run_mpi(nprocs, program, timeout=60, env=HOST)
    assert r.returncode == 0, r.stderr
    assert r.stdout == intrinsics_expected()


@pytest.mark.mpi
def test_sync_images_without_coarrays(tmp_path: Path) -> None:
    """No coarray, no local-view directive: xmp_sync_images still pairs the images, and a
    wrong image number names the function."""
    src = tmp_path / "s.c"
    src.write_text("#include <stdio.h>\n#include <xmp.h>\n#pragma xmp nodes p[*]\nint main(void)\n{\n"
                   "    int me = xmpc_node_num(), n = xmp_num_nodes(), st = 1, set[2];\n"
                   "    set[0] = (me + 1) % n;\n    set[1] = (me + n - 1) % n;\n"
                   "    xmp_sync_images(2, set, &st);\n    xmp_sync_images_all(NULL);\n"
                   "    printf(\"%d\\n\", st);\n    xmp_sync_image(n, NULL);\n    return 0;\n}\n")
    r = run_xmpacc(str(src), "-o", str(tmp_path / "s"))
    assert r.returncode == 0, r.stderr
    run = run_mpi(3, tmp_path / "s", timeout=60, env=HOST)
    assert run.returncode != 0 and run.stdout == "0\n0\n0\n", run.stderr
    assert "xmp_sync_image(): error: image 3 does not exist: there are 3 images (0..2)" in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.mpi
def test_plain_file_including_xmp_h_through_a_header(tmp_path: Path) -> None:
    """A file without directives that reaches xmp.h through a header of the user's is
    compiled and linked with MPI, by itself (-c) and in one command with the program."""
    (tmp_path / "common.h").write_text("#include <xmp.h>\nint world_size(void);\n")
    (tmp_path / "util.c").write_text('#include "common.h"\nint world_size(void)\n{\n    int s = 0;\n'
                                     "    MPI_Comm_size(MPI_COMM_WORLD, &s);\n    xmp_sync_all(NULL);\n"
                                     "    return s;\n}\n")
    (tmp_path / "main.c").write_text("#include <stdio.h>\nint world_size(void);\n#pragma xmp nodes p[*]\n"
                                     "int main(void)\n{\n    int s = world_size();\n"
                                     "    if (xmp_node_num() == 1)\n"
                                     "        printf(\"%d %d\\n\", s, xmp_num_nodes());\n    return 0;\n}\n")
    r = run_xmpacc("-c", "util.c", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = run_xmpacc("main.c", "util.c", "-o", "prog", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    run = run_mpi(2, tmp_path / "prog", timeout=60)
    assert (run.returncode, run.stdout) == (0, "2 2\n"), run.stderr
