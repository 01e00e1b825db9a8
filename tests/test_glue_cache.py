"""The glue's object from xmpacc's cache (xmpacc/glue_cache.py): compiled by the first link
that needs it, reused by the next with the same compiler and flags, said again with what
the compiler said; other flags, a flag that writes files of its own and
XMPACC_GLUE_CACHE=0 keep the glue in the link."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import run_mpi, run_xmpacc

from xmpacc import glue_cache

PROGRAM = """#include <stdio.h>
#include <xmp.h>
#pragma xmp nodes p[*]
int main(void) { printf("nodes %d\\n", xmp_num_nodes()); return 0; }
"""


def _build(tmp_path: Path, cache: Path, name: str, *flags: str, env: dict[str, str] | None = None
           ) -> subprocess.CompletedProcess[str]:
    src = tmp_path / "prog.c"
    src.write_text(PROGRAM)
    r = run_xmpacc("-v", *flags, str(src), "-o", str(tmp_path / name),
                   env={"XMPACC_CACHE_DIR": str(cache), **(env or {})})
    assert r.returncode == 0, r.stderr
    return r


def _glue_compiles(r: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in r.stdout.splitlines() if " -c " in line and ".runtime.c" in line]


@pytest.mark.mpi
def test_the_second_link_takes_the_glue_from_the_cache(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = _build(tmp_path, cache, "a", "-O2")
    second = _build(tmp_path, cache, "b", "-O2")
    objects = sorted(cache.glob("glue-*.o"))
    assert len(objects) == 1 and len(_glue_compiles(first)) == 1 and not _glue_compiles(second)
    link = [line for line in second.stdout.splitlines() if " -shared " in line]
    assert len(link) == 1 and str(objects[0]) in link[0] and ".runtime.c" not in link[0]
    for exe in ("a", "b"):
        r = run_mpi(2, tmp_path / exe, env={"XMPACC_DEVICE": "host"})
        assert r.returncode == 0 and r.stdout == "nodes 2\nnodes 2\n", r.stderr
    _build(tmp_path, cache, "c", "-O0", "-g")   # other flags: another object
    assert len(list(cache.glob("glue-*.o"))) == 2


@pytest.mark.parametrize("flags,env", [(("-O2",), {"XMPACC_GLUE_CACHE": "0"}),
                                       (("-O2", "-fprofile-arcs"), {}), (("-O2", "-march=native"), {})])
def test_the_glue_stays_in_the_link(tmp_path: Path, flags: tuple[str, ...], env: dict[str, str]) -> None:
    """Turned off, with a flag that makes the compile write a file of its own
    (-fprofile-arcs: the glue's coverage notes belong next to the user's build), or one
    that asks for this machine's CPU (another machine may share the cache folder)."""
    cache = tmp_path / "cache"
    r = _build(tmp_path, cache, "a", *flags, env=env)
    assert not list(cache.glob("glue-*.o")) and not _glue_compiles(r)
    link = [line for line in r.stdout.splitlines() if " -shared " in line]
    assert len(link) == 1 and ".runtime.c" in link[0]


def test_what_the_compiler_said_is_said_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A miss compiles once and reports its warning; a hit reports the same words."""
    monkeypatch.setenv("XMPACC_CACHE_DIR", str(tmp_path))
    runs: list[list[str]] = []

    def run(cmd: list[str]) -> subprocess.CompletedProcess[str]:
        runs.append(cmd)
        if "-c" in cmd:
            Path(cmd[-1]).write_bytes(b"object")
            return subprocess.CompletedProcess(cmd, 0, "", "glue.c:1: warning: something\n")
        return subprocess.CompletedProcess(cmd, 0, "int x;\n" if "-E" in cmd else "cc 1.0\n", "")

    said: list[str] = []
    objs = [glue_cache.glue_object(["fakecc"], ["-O2"], ["-O2"], "glue.c", run,
                                   lambda p: said.append(p.stderr)) for _ in range(2)]
    assert objs[0] == objs[1] and objs[0] is not None and Path(objs[0]).read_bytes() == b"object"
    assert said == ["glue.c:1: warning: something\n"] * 2
    assert sum("-c" in cmd for cmd in runs) == 1
