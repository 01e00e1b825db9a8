"""Dynamic global data and structures (global-view §4, §8): the generated code of
template_fix, xmp_malloc, aligned pointers, parameters and structure members (pass tests
and a golden file), and the run-time mistakes they can make.

Rewrite the golden file after a deliberate change with
    XMPACC_UPDATE_GOLDEN=1 pytest tests/test_dynamic.py
and review its diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import REPO, run_mpi, run_xmpacc
from test_passes import assert_lowered, function, run_passes, user_items

from xmpacc import __version__
from xmpacc.cbuild import to_c
from xmpacc.context import init_function_name

GOLDEN = Path(__file__).parent / "golden"
LIBRARY = Path(__file__).parent / "library"
UPDATE = bool(os.environ.get("XMPACC_UPDATE_GOLDEN"))

DYN = """\
#pragma xmp nodes p[4]
#pragma xmp template t[:]
#pragma xmp distribute t[gblock(*)] onto p
double *a;
#pragma xmp align a[i] with t[i]
#pragma xmp shadow a[1]
"""


def test_template_fix_and_xmp_malloc(tmp_path: Path) -> None:
    assert_lowered(tmp_path, DYN + """
void f(int n, int *m)
{
    int i;
#pragma xmp template_fix [gblock(m)] t[0:n-1]
    a = (double *) xmp_malloc(xmp_desc_of(a), n);
#pragma xmp loop on t[i]
    for (i = 0; i < n; i++)
        a[i] = i;
    xmp_free(a);
}
""", """
void f(int n, int *m)
{
    int i;
    _xmpacc_template_fix(&_xmpacc_t_t, "unit.c:11", (const long long []){0, n - 1}, (const void *[]){m});
    a = _xmpacc_malloc((void *) (&_xmpacc_a_a), "unit.c:12", 1, (const long long []){n}, 0);
    if (!_xmpacc_t_t.distributed)
        _xmpacc_not_ready(&_xmpacc_t_t, "unit.c:13");
    {
        {
            _xmpacc_sched_t _xmpacc_s_i = _xmpacc_schedule(&_xmpacc_t_t.dim[0], 0, n - 1, 1);
            for (i = _xmpacc_s_i.first; i <= _xmpacc_s_i.last; i += 1)
                a[_XMPACC_LIVE(_xmpacc_a_a, "unit.c:15", _XMPACC_L(_xmpacc_a_a, 0, i))] = i;
        }
    }
    _xmpacc_free(a, "unit.c:16");
}
""")


def test_unfixed_template_and_pointer_get_their_mapping_only(tmp_path: Path) -> None:
    unit, _ctx = run_passes(tmp_path, DYN, stop_after="entry")
    init = [x for x in unit.ast.ext
            if getattr(getattr(x, "decl", None), "name", "") == init_function_name(unit)]
    text = to_c(init[0])
    assert '_xmpacc_template_init(&_xmpacc_t_t, "unit.c:2", "t", 1, 0);' in text
    assert "(const int []){2103}, (const long long []){0}, (const void *[]){0}" in text   # gblock(*): no map
    assert ('_xmpacc_align_pointer(&_xmpacc_a_a, "unit.c:5", "a", &_xmpacc_t_t, sizeof(double), 1, '
            "(const int []){0}, (const long long []){0}, (const long long []){1, 1});") in text


def test_structure_member(tmp_path: Path) -> None:
    source = """\
#pragma xmp nodes p[4]
#pragma xmp template t[100]
#pragma xmp distribute t[block] onto p
struct b { int id; int a[100]; };
#pragma xmp align b.a[i] with t[i]
#pragma xmp shadow b.a[1]
void f(struct b *q)
{
    struct b c;
    int i;
#pragma xmp loop on t[i]
    for (i = 0; i < 100; i++)
        c.a[i] = q->a[i];
#pragma xmp reflect (c.a)
}
"""
    unit, _ctx = run_passes(tmp_path, source)
    text = to_c(function(unit, "f"))
    for line in [
        'c.a = (int *) _xmpacc_align(&c._xmpacc_a_a, "unit.c:5", "c.a", &_xmpacc_t_t, sizeof(int), 1, '
        "(const long long []){100}, (const int []){0}, (const long long []){0}, (const long long []){1, 1});",
        "_XMPACC_CLEANUP(_xmpacc_object_end) _xmpacc_object_t _xmpacc_o_c = {&c, sizeof(c)};",
        "c.a[_XMPACC_L(c._xmpacc_a_a, 0, i)] = q->a[_XMPACC_L(q->_xmpacc_a_a, 0, i)];",
        '_xmpacc_reflect(&c._xmpacc_a_a, "unit.c:14", 0);',
    ]:
        assert line in text, text
    unit, _ctx = run_passes(tmp_path, source)
    struct = to_c(user_items(unit)[0])
    assert "int *a;" in struct and "_xmpacc_array_t _xmpacc_a_a;" in struct


def test_aligned_parameter_becomes_a_pointer_in_prototypes_too(tmp_path: Path) -> None:
    unit, _ctx = run_passes(tmp_path, """\
#pragma xmp nodes p[4]
#pragma xmp template t[100]
#pragma xmp distribute t[block] onto p
double g(double w[100][3], int n);
double g(double w[100][3], int n)
{
#pragma xmp align w[i][*] with t[i]
    return w[1][2];
}
""")
    text = to_c(unit.ast)
    assert text.count("double g(double *w, int n)") == 2
    assert ("w = _xmpacc_malloc(&_xmpacc_a_w, \"unit.c:7\", 2, (const long long []){100, 3}, w);") in text


def test_golden_host_c(tmp_path: Path) -> None:
    """tests/library/golden_dynamic.c: every construct of global-view §4 and §8 together."""
    exe = tmp_path / "golden_dynamic"
    r = run_xmpacc("-S", "tests/library/golden_dynamic.c", "-o", str(exe), cwd=REPO)
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "golden_dynamic.host.c").read_text()
    golden = GOLDEN / "golden_dynamic.host.c"
    if UPDATE:
        golden.write_text(text)

    def body(t: str) -> str:
        first, _, rest = t.partition("\n")
        return rest if __version__ in first else t
    assert body(text) == body(golden.read_text()), \
        "generated host C differs from tests/golden/golden_dynamic.host.c " \
        "(XMPACC_UPDATE_GOLDEN=1 rewrites it)"


@pytest.fixture(scope="module")
def errors_exe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    exe = tmp_path_factory.mktemp("dynamic") / "dynamic_errors"
    r = run_xmpacc(str(LIBRARY / "dynamic_errors.c"), "-o", str(exe))
    assert r.returncode == 0, r.stderr
    return exe


@pytest.mark.mpi
@pytest.mark.parametrize("what, message", [
    ("loop-before-fix", "dynamic_errors.c:22: error: template 't' is not fixed yet"),
    ("malloc-before-fix", "dynamic_errors.c:27: error: template 't' is not fixed yet (xmp_malloc of 'a'"),
    ("access-before-malloc",
     "dynamic_errors.c:30: error: 'a' is not allocated: call xmp_malloc before using it"),
    ("fix-twice", "dynamic_errors.c:32: error: template 't' is already fixed"),
    ("reflect-before-malloc", "dynamic_errors.c:35: error: 'a' is not allocated"),
    ("gblock-sum", "dynamic_errors.c:44: error: template 'g' dimension 0: gblock sizes sum to 13 but the "
                   "template extent is 12"),
    ("free-twice", "dynamic_errors.c:42: error: xmp_free of a pointer that xmp_malloc did not return"),
])
def test_run_time_mistakes(errors_exe: Path, what: str, message: str) -> None:
    r = run_mpi(2, errors_exe, what, timeout=60)
    assert r.returncode != 0 and message in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.mpi
def test_no_mistake(errors_exe: Path) -> None:
    r = run_mpi(2, errors_exe, timeout=60)
    assert (r.returncode, r.stdout) == (0, "no error\nno error\n"), r.stderr
