"""Run-time errors of the global view's rest (global-view §10): each program makes one
mistake that only the running program can see; it must end with one message naming the
directive's line and the values involved, a non-zero status and no traceback."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import run_mpi, run_xmpacc

pytestmark = pytest.mark.mpi

HEAD = """\
#include <stdio.h>
#pragma xmp nodes p[4]
#pragma xmp template t[8]
#pragma xmp distribute t[block] onto p
double a[8];
#pragma xmp align a[i] with t[i]
#pragma xmp shadow a[1]
int main(void)
{
    int x = 0;
"""
TAIL = "    return x;\n}\n"

# name -> (body lines after HEAD, line of the mistake, fragments of the message)
CASES = {
    "tasks-overlap": ("""\
#pragma xmp tasks
    {
#pragma xmp task on p[0:2]
        x = 1;
#pragma xmp task on p[1:3]
        x = 2;
    }
""", 11, ["the node sets of the tasks at prog.c:13 and prog.c:15 are not disjoint", "node 1"]),
    "reflect-do-first": ("#pragma xmp reflect_do (a)\n", 11, ["reflect_do of 'a' before its reflect_init"]),
    "subset-size": ("{\n#pragma xmp nodes q[3] = p[0:2]\n    x = 1;\n}\n", 12,
                    ["nodes 'q' has 3 node(s), but the node set it maps onto has 2"]),
    "template-ref-bounds": ("#pragma xmp task on t[9]\n    x = 1;\n", 11,
                            ["template reference of dimension 0 of 't' is out of bounds: "
                             "index 9 (valid 0..7)"]),
    "node-ref-bounds": ("#pragma xmp barrier on p[2:3]\n", 11,
                        ["node reference of dimension 0 of 'p' is out of bounds: index 4 (valid 0..3)"]),
    "task-outside-executing-set": ("#pragma xmp task on p[0]\n    {\n"
                                   "#pragma xmp task on p[1:2]\n    x = 1;\n    }\n",
                                   13, ["contains node 1", "not in the executing node set"]),
    "gmove-node-families": ("{\n#pragma xmp nodes g[2][2] = p[0:4]\n#pragma xmp nodes row[2] = g[*][:]\n"
                            "#pragma xmp template th[8]\n#pragma xmp distribute th[block] onto row\n"
                            "    double hv[8];\n#pragma xmp align hv[i] with th[i]\n#pragma xmp gmove\n"
                            "    a[:] = hv[:];\n}\n",
                            18, ["gmove between an array on a node array with '*' in its nodes reference (a "
                                 "different set of nodes on different nodes) and an array on another node "
                                 "array: not supported yet"]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_runtime_error_names_the_line(tmp_path: Path, name: str) -> None:
    body, line, fragments = CASES[name]
    src = tmp_path / "prog.c"
    src.write_text(HEAD + body + TAIL)
    exe = tmp_path / "prog"
    r = run_xmpacc(str(src), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    try:
        run = run_mpi(4, exe, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{name}: the job hangs instead of ending with an error")
    assert run.returncode != 0
    assert "Traceback" not in run.stderr, run.stderr
    errors = [ln for ln in run.stderr.splitlines() if ": error: " in ln]
    assert errors, run.stderr
    assert errors[0].startswith(f"prog.c:{line}: error: "), errors[0]
    for fragment in fragments:
        assert fragment in errors[0], errors[0]
