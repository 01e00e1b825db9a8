"""The exit status of ``main`` (XMP-global-view-rest.md §8, issue 30): ``void main()`` and a
``main`` that ends without ``return`` exit with 0 on every process, as Omni's programs do,
also where the file holding ``main`` has no directive (frontend/scan.py translates it, so
that pass entry wraps it) or names ``void`` through a typedef; a status that ``main``
returns is the job's.  Each program runs under ``mpirun -np 2``."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_mpi, run_xmpacc

from xmpacc.frontend.scan import has_directives

XMP = "#pragma xmp nodes p[*]\n"
WORK = ('#include <stdio.h>\n#include <xmp.h>\n' + XMP +
        'void work(void) { printf("node %d\\n", xmpc_node_num()); }\n')

BODY = "void work(void);\n{} main(void)\n{{\n    work();\n{}}}\n"
CASES = [
    # (name, the file of main, with work.c beside it, expected status)
    ("void-main", XMP + BODY.format("void", ""), 0),
    ("void-main-without-directives", BODY.format("void", ""), 0),
    ("void-through-a-typedef", XMP + "typedef void nothing;\n" + BODY.format("nothing", ""), 0),
    ("int-main-without-return", BODY.format("int", ""), 0),
    ("main-without-a-type", XMP + BODY.format("", "").replace(" main", "main"), 0),
    ("main-returns-its-status", XMP + BODY.format("int", "    return 3;\n"), 3),
]


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The object of an XMP file that main calls (compiled once)."""
    tmp = tmp_path_factory.mktemp("entry")
    (tmp / "work.c").write_text(WORK)
    r = run_xmpacc("-c", str(tmp / "work.c"), "-o", str(tmp / "work.o"))
    assert r.returncode == 0, r.stderr
    return tmp / "work.o"


@pytest.mark.mpi
@pytest.mark.parametrize("name,main,status", CASES, ids=[c[0] for c in CASES])
def test_exit_status_of_main_on_every_process(tmp_path: Path, work: Path, name: str, main: str,
                                              status: int) -> None:
    (tmp_path / "main.c").write_text(main)
    exe = tmp_path / "prog"
    r = run_xmpacc(str(tmp_path / "main.c"), str(work), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    r = run_mpi(2, exe, timeout=60)
    assert r.returncode == status, r.stderr
    assert sorted(r.stdout.splitlines()) == ["node 0", "node 1"], r.stdout


def test_a_file_defining_void_main_is_translated(tmp_path: Path) -> None:
    """Only the translation gives it the ``int main`` that the runtime calls."""
    for text, translated in [("void main(void) { }\n", True), ("static void\nmain (void) { }\n", True),
                             ("int main(void) { return 0; }\n", False),
                             ("void main_loop(void) { }\nint main(void) { return 0; }\n", False)]:
        src = tmp_path / "m.c"
        src.write_text(text)
        assert has_directives(str(src), []) == translated, text
