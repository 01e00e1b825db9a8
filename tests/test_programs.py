"""One XMP feature per program (tests/programs/*.c), compiled by xmpacc and run under
mpirun; each must print what its serial build (plain cc, pragmas ignored) prints.

Each program is compiled once per module and run with every process count it allows.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from conftest import SharedBuilds, run_mpi, run_xmpacc, runtime_stats, same_output, xmpacc_and_serial

PROGRAMS = Path(__file__).parent / "programs"

# program -> the process counts it runs with (fixed node arrays allow only theirs)
CASES: dict[str, tuple[int, ...]] = {
    "xmp_functions.c": (2, 3, 4),          # task on p[1] needs a second node
    "bcast_reduction_on.c": (4,),
    "reflect_width_periodic.c": (1, 2, 3, 4),
    "reflect_corners_2d.c": (4,),
    "gblock.c": (4,),
    "cyclic_loops.c": (1, 2, 3, 4),
    "loop_star.c": (4,),
    "block_scope_array.c": (1, 2, 3, 4),
    "for_decl.c": (1, 3),
    "libc_macros.c": (1, 2),
    "async_wait.c": (1, 2, 3, 4),
    "switch_directives.c": (1, 2, 3, 4),   # directives among a case's statements
    "gmove_dummy_align.c": (1, 2, 3, 4),   # see test_gmove_plan_serves_a_dummy_aligned_at_each_call
    "param_views.c": (1, 2, 3, 4),         # see test_parameter_views_serve_their_own_arguments
    "param_views_in_c.c": (1, 2, 3, 4),    # see test_parameter_views_are_made_in_c
    "task_plans.c": (1, 2, 3, 4),          # see test_tasks_run_in_c_from_their_second_call
    "static_desc_views.c": (1, 2, 3, 4),   # see test_static_desc_parameters_keep_their_views
    "gmove_replay.c": (1, 2, 3, 4),        # see test_gmoves_run_in_c_from_their_second_call
    "location_replay.c": (1, 3),           # see test_location_reductions_run_in_c_from_their_second_call
    # global-view §5-7
    "reduction_location.c": (1, 3),
    "reduction_types.c": (2, 4),
    "template_refs.c": (1, 3),
    "template_refs_2d.c": (4,),             # nodes p(2,2)
    "node_subsets.c": (4,),                 # two nodes per row of g[*][2], subsets of p[2:]
    "loop_on_nodes.c": (1, 3),
    "tasks.c": (2, 4),                      # two tasks on halves of the nodes
    "full_shadow_cyclic.c": (1, 3),
    "reflect_orthogonal.c": (4,),           # nodes p[2][2]
    "reflect_persistent.c": (2, 4),
    "reduce_shadow.c": (1, 3),
    "reduce_shadow_2d.c": (4,),             # nodes p[2][2]
    "expand_margin.c": (1, 3, 4),
    "expand_margin_2d.c": (4,),             # nodes p[2][2], blocks of 6 columns
    "async_overlap.c": (2, 3),
    "template_bounds.c": (1, 4),
    "template_fix.c": (1, 2, 3, 4),        # global-view §4: template_fix, xmp_malloc, block(n)
    "template_fix_part.c": (2, 4),          # t[:][M]; nodes p[*][2]
    "malloc_2d.c": (1, 4),
    "local_templates.c": (1, 3),
    "struct_members.c": (1, 3),            # global-view §8
    "struct_arrays.c": (1, 4),
    "shadowed_names.c": (1, 3),
    "reflect_fast.c": (2, 4),              # nodes q[*][2]; test_fast_reflect.py checks the C path ran
    "task_subset_loops.c": (4,),            # nodes q[4]: loops in a task on q[2:2]
    "loop_fixed_subscript.c": (2, 4),      # nodes p[*][2]: loop (j) on t[i][j] runs on row i's owners
}
# Oversubscribed runs on the host backend (marked many_procs): node sets need many nodes.
MANY_PROCS: dict[str, tuple[int, ...]] = {
    "node_subsets.c": (8, 16),
    "tasks.c": (8,),
}
XFAIL: dict[str, pytest.MarkDecorator] = {}
# Runs of CASES that a test below, tests/test_fast_reflect.py (reflect_fast.c) or
# tests/test_library.py (local_templates.c) makes: the same build at the same process count,
# checked against the serial build's output too, with XMPACC_STATS=1, which only prints the
# runtime's counters at the end; not made twice.
RUN_ELSEWHERE = {("gmove_dummy_align.c", 3), ("param_views.c", 2), ("param_views_in_c.c", 3),
                 ("task_plans.c", 3), ("location_replay.c", 3), ("gmove_replay.c", 2), ("gmove_replay.c", 3),
                 ("reflect_fast.c", 2), ("reflect_fast.c", 4), ("local_templates.c", 3)}


def _params() -> list[object]:
    plain = [pytest.param(name, n, id=f"{Path(name).stem}-np{n}", marks=XFAIL.get(name, ()))
             for name, counts in CASES.items() for n in counts if (name, n) not in RUN_ELSEWHERE]
    many = [pytest.param(name, n, id=f"{Path(name).stem}-np{n}", marks=pytest.mark.many_procs)
            for name, counts in MANY_PROCS.items() for n in counts]
    return plain + many


def program_builds(tmp_path_factory: pytest.TempPathFactory) -> SharedBuilds:
    """program -> (executable, serial output); xmpacc runs once per program and test run
    (tests/test_check_mode.py and tests/test_library.py run some of them too)."""
    return SharedBuilds(tmp_path_factory, "programs", CASES, xmpacc_and_serial(PROGRAMS))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> SharedBuilds:
    return program_builds(tmp_path_factory)


def test_every_program_is_listed() -> None:
    on_disk = {p.name for p in PROGRAMS.glob("*.c")}
    special = {"file_scope_extent.c", "job_control.c", "nodes_mismatch.c",  # see test_job.py
               "replay_paths.c", "replay_one_site.c", "replay_reductions.c",   # see test_replay.py
               "replay_collectives.c", "replay_deferred_sites.c", "replay_updates.c",
               "replay_reflect_widths.c", "replay_update_sections.c", "replay_acc_collectives.c",
               "replay_private.c", "replay_over_nodes.c", "replay_reduce_on.c",
               "reflect_widths_fast.c", "reflect_async_fast.c"}   # see test_fast_reflect.py
    assert on_disk - special == set(CASES)
    assert all(n in CASES[name] for name, n in RUN_ELSEWHERE)


@pytest.mark.mpi
@pytest.mark.parametrize("name,nprocs", _params())
def test_program_prints_what_serial_build_prints(built: dict[str, tuple[Path, str]], name: str,
                                                 nprocs: int) -> None:
    exe, expected = built[name]
    r = run_mpi(nprocs, exe, timeout=60 if nprocs <= 4 else 120)
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, expected)


@pytest.mark.mpi
def test_file_scope_extent_from_const_int(tmp_path: Path) -> None:
    src = PROGRAMS / "file_scope_extent.c"
    plain = subprocess.run(["cc", "-c", str(src), "-o", str(tmp_path / "plain.o")],
                           capture_output=True, text=True, check=False)
    assert plain.returncode != 0 and "variably modified" in plain.stderr  # why no serial oracle
    exe = tmp_path / "prog"
    r = run_xmpacc(str(src), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    # sum a = 0.5 * (0 + ... + 999), sum b = 0^2 + ... + 29^2
    expected = "N = 1000  M = 30  sum a = 249750.0  sum b = 8555.0\n"
    for nprocs in (1, 3):
        r = run_mpi(nprocs, exe, timeout=60)
        assert r.returncode == 0, r.stderr
        assert r.stdout == expected


@pytest.mark.mpi
def test_gmove_plan_serves_a_dummy_aligned_at_each_call(built: dict[str, tuple[Path, str]]) -> None:
    """A dummy argument aligned anew at each of 10 calls, with the same layout: one gmove
    plan on every node (runtime/gmove.py keys plans by layout, not by array object; NPB's
    CG rebuilt its matvec's plan every call, 2.6 ms of a 2-process run's gmove).  The dummy
    is named by static_desc and every call passes the same block: the descriptor of the
    first call serves the 9 others without a runtime call (passes/localize/lower_decls.py);
    without static_desc the runtime's view of the first call serves them (runtime/dynamic.py)."""
    exe, expected = built["gmove_dummy_align.c"]
    r = run_mpi(3, exe, env={"XMPACC_STATS": "1"})
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, expected)
    assert [(s["gmove_calls"], s["gmove_plans"], s.get("parameter_views_reused", 0), s["replayed_gmoves"])
            for s in runtime_stats(r.stderr)] == [(10, 1, 0, 9)] * 3


@pytest.mark.mpi
def test_parameter_views_serve_their_own_arguments(built: dict[str, tuple[Path, str]]) -> None:
    """Aligned parameters of two functions called with three arguments by turns, 16 calls:
    each argument's view is made once (a, b, c) and serves its later calls, and every call
    sees its own argument (the serial program's sum).  Of the 13 later calls, the 3 of
    scale(a) right after scale(a) keep scale's static_desc descriptor without a runtime
    call; the other 10 take the view of an earlier call, made in C (include/xmpacc_params.h)."""
    exe, expected = built["param_views.c"]
    r = run_mpi(2, exe, env={"XMPACC_STATS": "1"})
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, expected)
    assert [(s.get("parameter_views_reused", 0), s["replayed_parameter_views"])
            for s in runtime_stats(r.stderr)] == [(0, 10)] * 2
    general = run_mpi(2, exe, env={"XMPACC_STATS": "1", "XMPACC_REPLAY": "0"})
    assert general.returncode == 0 and general.stdout == r.stdout, general.stderr
    assert [s["parameter_views_reused"] for s in runtime_stats(general.stderr)] == [10, 10]


@pytest.mark.mpi
def test_tasks_run_in_c_from_their_second_call(built: dict[str, tuple[Path, str]]) -> None:
    """task on in a time loop (include/xmpacc_task_plans.h): 12 steps of four task sites,
    a nocomm one and a nested one, at 3 processes: node 0 answers 53 of its task calls in
    C, the others 42 (a site whose node changes has a plan per node); xmp_num_nodes and
    xmpc_node_num inside the tasks read what they must, also where a call inside a task
    C entered goes to Python (which takes the task over); the serial program's output,
    as the general path's."""
    exe, expected = built["task_plans.c"]
    r = run_mpi(3, exe, env={"XMPACC_STATS": "1"})
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, expected)
    assert sorted(s["replayed_tasks"] for s in runtime_stats(r.stderr)) == [42, 42, 53]
    general = run_mpi(3, exe, env={"XMPACC_REPLAY": "0"})
    assert general.returncode == 0 and general.stdout == r.stdout, general.stderr


@pytest.mark.mpi
def test_location_reductions_run_in_c_from_their_second_call(built: dict[str, tuple[Path, str]],
                                                             tmp_path: Path) -> None:
    """Location reductions in a time loop (include/xmpacc_locations.h): 12 steps of four
    loop clauses (firstmax with a scalar and a whole array as locations, lastmin, lastmax
    down a cyclic template, firstmin of an int), two directives (max, lastmax) and a GPU
    loop's lastmax, at 3 processes: every call after a site's first combines in C on every
    node (55 and 22), the GPU loop's launch picking its record in C too, as the profile's
    [C] rows say; the winners move from node to node and tie across nodes, and every step
    prints the serial program's line, as the general path does."""
    exe, expected = built["location_replay.c"]
    r = run_mpi(3, exe, env={"XMPACC_STATS": "1", "XMPACC_PROFILE": str(tmp_path / "trace.json")})
    assert r.returncode == 0, r.stderr
    out = r.stdout.split("xmpacc profile")[0]
    same_output(out, expected)
    assert [(s["replayed_loop_location_reductions"], s["replayed_location_reductions"])
            for s in runtime_stats(r.stderr)] == [(55, 22)] * 3
    rows = {(int(line), what): int(n) for line, what, n in re.findall(
        r"location_replay\.c:(\d+)\s+((?:loop_reduce_var|reduce_var|loop acc \(kernel\)) \[C\])\s+(\d+)",
        r.stdout + r.stderr)}
    loop, directive, launch = "loop_reduce_var [C]", "reduce_var [C]", "loop acc (kernel) [C]"
    assert rows == {(47, loop): 66, (52, loop): 33, (55, loop): 33,   # line 47: two clauses
                    (67, directive): 33, (68, directive): 33, (74, loop): 33, (74, launch): 33}, rows
    general = run_mpi(3, exe, env={"XMPACC_REPLAY": "0"})
    assert general.returncode == 0 and general.stdout == out, general.stderr


@pytest.mark.mpi
def test_parameter_views_are_made_in_c(built: dict[str, tuple[Path, str]], tmp_path: Path) -> None:
    """Aligned parameters from their second call with the same align, argument and
    extents (include/xmpacc_params.h): of the 64 calls' views, 56 are made in C and the
    release of every view too; the 8 others are the first ones and those of the local
    array, whose block goes at each return.  A reflect of a dummy inside, a function
    called at two depths and from another: the serial program's number, as the general
    path's; in the profile the calls that ran in C say so."""
    exe, expected = built["param_views_in_c.c"]
    r = run_mpi(3, exe, env={"XMPACC_STATS": "1", "XMPACC_PROFILE": str(tmp_path / "trace.json")})
    assert r.returncode == 0, r.stderr
    same_output(r.stdout.split("xmpacc profile")[0], expected)
    assert [s["replayed_parameter_views"] for s in runtime_stats(r.stderr)] == [56] * 3
    rows = {(line, what): int(n) for line, what, n in re.findall(
        r"param_views_in_c\.c:(\d+)\s+(malloc \[C\]|malloc|align_pointer \[C\]|align_pointer)\s+(\d+)",
        r.stdout + r.stderr)}
    assert rows[("23", "malloc [C]")] + rows[("36", "malloc [C]")] == 56 * 3, rows
    assert rows[("23", "malloc")] + rows[("36", "malloc")] == 12 * 3, rows
    general = run_mpi(3, exe, env={"XMPACC_REPLAY": "0"})
    assert general.returncode == 0 and general.stdout == r.stdout.split("xmpacc profile")[0], general.stderr


@pytest.mark.mpi
@pytest.mark.parametrize("nprocs", [1, 3])
def test_static_desc_parameters_keep_their_views(built: dict[str, tuple[Path, str]], nprocs: int,
                                                 tmp_path: Path) -> None:
    """static_desc parameters (passes/localize/lower_decls.py): of dot's 20 calls, the 6
    that pass the arguments of its last call make no runtime call for their two dummies
    (28 aligns and xmp_mallocs of 40 per node in the profile); axpy's arguments change at
    every call (24 of 24).  A local array's block takes its views with it: the last two
    calls of dot pass local arrays, perhaps at one address, and both take the runtime
    call.  The runtime calls count whether Python or C made them (include/xmpacc_params.h);
    some are C's.  The output is the serial program's."""
    exe, expected = built["static_desc_views.c"]
    r = run_mpi(nprocs, exe, env={"XMPACC_PROFILE": str(tmp_path / "trace.json")})
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, expected)
    calls: dict[tuple[str, str], int] = {}
    in_c = 0
    pattern = r"static_desc_views\.c:(\d+)\s+(malloc|align_pointer)( \[C\])?\s+(\d+)"
    for line, what, c, n in re.findall(pattern, r.stdout + r.stderr):
        calls[(line, what)] = calls.get((line, what), 0) + int(n)   # in Python or in C
        in_c += int(n) if c else 0
    want = {(line, what): n * nprocs for line, n in (("21", 28), ("33", 24))
            for what in ("malloc", "align_pointer")}
    assert calls == want, calls
    assert in_c > 0


@pytest.mark.mpi
@pytest.mark.parametrize("nprocs", [2, 3])
def test_gmoves_run_in_c_from_their_second_call(built: dict[str, tuple[Path, str]], nprocs: int) -> None:
    """Five gmove forms (any offsets, pieces at a stride, a shift within one array, into a
    local array and back) in 4 steps: 15 run in C (include/xmpacc_gmove.h) on every node,
    and the program prints what its serial build and its general path
    (XMPACC_REPLAY=0) print."""
    exe, expected = built["gmove_replay.c"]
    r = run_mpi(nprocs, exe, env={"XMPACC_STATS": "1"})
    assert r.returncode == 0, r.stderr
    same_output(r.stdout, expected)
    assert [(s["gmove_calls"], s["replayed_gmoves"]) for s in runtime_stats(r.stderr)] == [(20, 15)] * nprocs
    general = run_mpi(nprocs, exe, env={"XMPACC_REPLAY": "0"})
    assert general.returncode == 0, general.stderr
    assert general.stdout == r.stdout
