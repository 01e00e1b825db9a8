"""Passes on the global view's rest (global-view §5-7): each new directive's generated C
as golden text (pycparser's printing, spacing ignored).  The expected code was read and
checked once; a deliberate change of the lowering updates it here."""

from __future__ import annotations

from pathlib import Path

from test_passes import function, run_passes

from xmpacc.cbuild import to_c


def assert_lowered(tmp_path: Path, source: str, expected: str, name: str = "f") -> None:
    """The function as pycparser prints it, compared ignoring spacing (the cleanup
    attribute that tasks get cannot be parsed back, so no round trip here)."""
    unit, _ctx = run_passes(tmp_path, source)
    assert " ".join(to_c(function(unit, name)).split()) == " ".join(expected.split())


DECLS = """\
#pragma xmp nodes p[4]
#pragma xmp template t[100]
#pragma xmp distribute t[block] onto p
double a[100];
#pragma xmp align a[i] with t[i]
#pragma xmp shadow a[1]
"""


def test_shadow_directives_become_runtime_calls(tmp_path: Path) -> None:
    """reflect orthogonal, reflect_init/reflect_do (async), reduce_shadow."""
    assert_lowered(tmp_path, DECLS + """
void f(void)
{
#pragma xmp reflect (a) width(1) orthogonal
#pragma xmp reflect_init (a) width(/periodic/ 1)
#pragma xmp reflect_do (a) async (2)
#pragma xmp reduce_shadow (a) width(1:0)
}
""", """
void f(void)
{
  _xmpacc_reflect_orthogonal(&_xmpacc_a_a, "unit.c:10", (const long long []){1, 1, 0});
  _xmpacc_reflect_init(&_xmpacc_a_a, "unit.c:11", (const long long []){1, 1, 1}, 0);
  _xmpacc_async_begin(2);
  _xmpacc_reflect_do(&_xmpacc_a_a, "unit.c:12");
  _xmpacc_async_end();
  _xmpacc_reduce_shadow(&_xmpacc_a_a, "unit.c:13", (const long long []){1, 0, 0}, _XMPACC_TYPE((double) 0));
}

""")


def test_tasks_nocomm_and_template_refs(tmp_path: Path) -> None:
    """task nocomm, tasks with a nodes and a template reference, bcast/barrier on templates."""
    assert_lowered(tmp_path, DECLS + """
void f(void)
{
    int x = 0;
#pragma xmp task on p[1] nocomm
    x = 1;
#pragma xmp tasks
    {
#pragma xmp task on p[0:2]
        x = 2;
#pragma xmp task on t[50:50] nocomm
        x = 3;
    }
#pragma xmp bcast (x) from t[20] on t[0:50]
#pragma xmp barrier on t(*)
}
""", """
void f(void)
{
  int x = 0;
  if (_xmpacc_task_nocomm("unit.c:11", &_xmpacc_n_p, (const long long []){1, 0, 1, 0, 0}))
    x = 1;
  {
    _XMPACC_CLEANUP(_xmpacc_tasks_scope_end) int _xmpacc_task_1 = _xmpacc_tasks_begin("unit.c:13", 2,
        (const void *[]){&_xmpacc_n_p, &_xmpacc_t_t}, (const void *[]){(const long long []){1, 1, 0, 1, 1},
        (const long long []){1, 1, 50, 99, 1}}, (const char *[]){"unit.c:15", "unit.c:17"});
    {
      _XMPACC_CLEANUP(_xmpacc_task_scope_end) int _xmpacc_task_2 = _xmpacc_tasks_enter(_xmpacc_task_1, 0);
      if (_xmpacc_task_2)
        x = 2;
    }
    if (_xmpacc_task_1 == 1)
      x = 3;
  }
  _xmpacc_bcast(&x, "unit.c:20", sizeof(x), &_xmpacc_t_t, (const long long []){1, 0, 20, 0, 0}, &_xmpacc_t_t,
      (const long long []){1, 1, 0, 49, 1});
  _xmpacc_barrier("unit.c:21", &_xmpacc_t_t, (const long long []){1, 3, 0, 0, 0});
}

""")


def test_node_subsets(tmp_path: Path) -> None:
    """nodes q[2] = p[1:2] and nodes e = * in a block."""
    assert_lowered(tmp_path, DECLS + """
void f(void)
{
#pragma xmp nodes q[2] = p[1:2]
#pragma xmp nodes e = *
#pragma xmp barrier on q
}
""", """
void f(void)
{
  _XMPACC_CLEANUP(_xmpacc_nodes_release) _xmpacc_nodes_t _xmpacc_n_q = {0};
  _xmpacc_nodes_subset(&_xmpacc_n_q, "unit.c:10", "q", 1, (const int []){2}, &_xmpacc_n_p,
      (const long long []){1, 1, 1, 2, 1});
  _XMPACC_CLEANUP(_xmpacc_nodes_release) _xmpacc_nodes_t _xmpacc_n_e = {0};
  _xmpacc_nodes_subset(&_xmpacc_n_e, "unit.c:11", "e", 1, (const int []){-1}, 0, 0);
  _xmpacc_barrier("unit.c:12", &_xmpacc_n_q, 0);
}

""")


def test_location_reductions_and_sections(tmp_path: Path) -> None:
    """firstmax with location variables on a loop, max with locations and a section on the directive."""
    assert_lowered(tmp_path, DECLS + """
void f(void)
{
    int i, k[2][3], idx = 0;
    double m = 0;
#pragma xmp loop on t[i] reduction(firstmax: m /idx, k[1][:]/)
    for (i = 0; i < 100; i++)
        if (a[i] > m) { m = a[i]; idx = i; }
#pragma xmp reduction(max: m /idx/) on p[0:2]
#pragma xmp reduction(+: k[1][0:2])
}
""", """
void f(void)
{
    int i;
    int k[2][3];
    int idx = 0;
    double m = 0;
    {
        long long _xmpacc_key_1_0[2] = {0};
        unsigned char _xmpacc_lv_1_0_0[sizeof(m)];
        unsigned char _xmpacc_lv_1_0_1[sizeof(idx)];
        unsigned char _xmpacc_lv_1_0_2[sizeof(k)];
        _xmpacc_loop_reduce_var_begin(&_xmpacc_t_t, (const int []){1}, (void *) (&m),
            (const long long []){_XMPACC_TYPE(m), sizeof(m), 0, 0}, 10);
        {
            _xmpacc_array_t _xmpacc_ha_a = _xmpacc_a_a;
            double * const _xmpacc_hp_a = a;
            {
                _xmpacc_sched_t _xmpacc_s_i = _xmpacc_schedule(&_xmpacc_t_t.dim[0], 0, 100 - 1, 1);
                for (i = _xmpacc_s_i.first; i <= _xmpacc_s_i.last; i += 1)
                {
                    __builtin_memcpy(_xmpacc_lv_1_0_0, &m, sizeof(m));
                    __builtin_memcpy(_xmpacc_lv_1_0_1, &idx, sizeof(idx));
                    __builtin_memcpy(_xmpacc_lv_1_0_2, &k, sizeof(k));
                    do
                        if (_xmpacc_hp_a[_XMPACC_L(_xmpacc_ha_a, 0, i)] > m)
                    {
                        m = _xmpacc_hp_a[_XMPACC_L(_xmpacc_ha_a, 0, i)];
                        idx = i;
                    }
                    while (0);
                    {
                        int _xmpacc_ch = (__builtin_memcmp(_xmpacc_lv_1_0_0, &m, sizeof(m)) != 0)
                            || (__builtin_memcmp(_xmpacc_lv_1_0_1, &idx, sizeof(idx)) != 0);
                        {
                            const long long _xmpacc_esz = sizeof(k[0][0]);
                            for (long long _xmpacc_e1 = 0;
                                _xmpacc_e1 < ((((((long long) ((sizeof(k[0])) / (sizeof(k[0][0])))) - 0) + 1)
                                    - 1) / 1);
                                _xmpacc_e1++)
                            {
                                long long _xmpacc_off = ((char *) (&k[1][0 + (_xmpacc_e1 * 1)]))
                                    - ((char *) (&k));
                                if (__builtin_memcmp(_xmpacc_lv_1_0_2 + _xmpacc_off,
                                    ((char *) (&k)) + _xmpacc_off, _xmpacc_esz))
                                    _xmpacc_ch = 1;
                            }
                        }
                        if (_xmpacc_ch)
                        {
                            _xmpacc_key_1_0[0] = 1;
                            _xmpacc_key_1_0[1] = (i - 0) / 1;
                        }
                    }
                }
            }
        }
        _xmpacc_loop_reduce_var(&_xmpacc_t_t, "unit.c:12", (const int []){1}, (void *) (&m),
            (const long long []){_XMPACC_TYPE(m), sizeof(m), 0, 0}, 10, 2,
            (void *[]){(void *) (&idx), (void *) (&k)},
            (const void *[]){(const long long []){_XMPACC_TYPE(idx), sizeof(idx), 0, 0},
            (const long long []){_XMPACC_TYPE(k[0][0]), sizeof(k[0][0]), 2, (sizeof(k)) / (sizeof(k[0])),
            (sizeof(k[0])) / (sizeof(k[0][0])), 2, 0, 1, 0, 0, 1, 0, -1, 1}}, 1, _xmpacc_key_1_0);
    }
    _xmpacc_reduce_var("unit.c:15", (void *) (&m), (const long long []){_XMPACC_TYPE(m), sizeof(m), 0, 0}, 8,
        &_xmpacc_n_p, (const long long []){1, 1, 0, 1, 1}, 1, (void *[]){(void *) (&idx)},
        (const void *[]){(const long long []){_XMPACC_TYPE(idx), sizeof(idx), 0, 0}});
    _xmpacc_reduce_var("unit.c:16", (void *) (&k),
        (const long long []){_XMPACC_TYPE(k[0][0]), sizeof(k[0][0]), 2, (sizeof(k)) / (sizeof(k[0])),
        (sizeof(k[0])) / (sizeof(k[0][0])), 2, 0, 1, 0, 0, 1, 0, 2, 1}, 1, 0, 0, 0, 0, 0);
}
""")


def test_loop_on_nodes_offsets_expand_margin(tmp_path: Path) -> None:
    """loop on p[i], on t[i+1] with expand(1), margin(/unbound/ 1:0)."""
    assert_lowered(tmp_path, DECLS + """
void f(void)
{
    int i;
    double s = 0;
#pragma xmp loop on p[i] reduction(+: s)
    for (i = 0; i < 4; i++) s += i;
#pragma xmp loop on t[i+1] expand(1)
    for (i = 0; i < 99; i++) a[i + 1] = 0;
#pragma xmp loop on t[i] margin(/unbound/ 1:0)
    for (i = 0; i < 100; i++) a[i] = 1;
}
""", """
void f(void)
{
    int i;
    double s = 0;
    {
        _xmpacc_loop_reduce_begin(&_xmpacc_n_p, (const int []){1}, &s, 1, _XMPACC_TYPE(s), 1);
        {
            _xmpacc_tdim_t _xmpacc_nd_i = _xmpacc_nodes_tdim(&_xmpacc_n_p, 0, 0);
            _xmpacc_sched_t _xmpacc_s_i = _xmpacc_schedule(&_xmpacc_nd_i, 0, 4 - 1, 1);
            for (i = _xmpacc_s_i.first; i <= _xmpacc_s_i.last; i += 1)
                s += i;
        }
        _xmpacc_loop_reduce(&_xmpacc_n_p, "unit.c:12", (const int []){1}, &s, 1, _XMPACC_TYPE(s), 1);
    }
    {
        {
            _xmpacc_array_t _xmpacc_ha_a = _xmpacc_a_a;
            double * restrict const _xmpacc_hp_a = a;
            {
                _xmpacc_range_t _xmpacc_r_i = _xmpacc_range(&_xmpacc_t_t.dim[0], 0 + 1, (99 - 1) + 1,
                    1, 1, 1, 0);
                _xmpacc_sched_t _xmpacc_s_i = _xmpacc_sched_shift(_xmpacc_schedule_span(0 + 1, 1,
                    _xmpacc_r_i.elo, _xmpacc_r_i.ehi), 1);
                for (i = _xmpacc_s_i.first; i <= _xmpacc_s_i.last; i += 1)
                    _xmpacc_hp_a[_XMPACC_L(_xmpacc_ha_a, 0, i + 1)] = 0;
            }
        }
    }
    {
        {
            _xmpacc_array_t _xmpacc_ha_a = _xmpacc_a_a;
            double * restrict const _xmpacc_hp_a = a;
            for (int _xmpacc_cell_3 = 0; _xmpacc_cell_3 < 3; _xmpacc_cell_3++)
            {
                {
                    _xmpacc_range_t _xmpacc_r_i = _xmpacc_range(&_xmpacc_t_t.dim[0], 0, 100 - 1, 1, 1, 0, 1);
                    _xmpacc_sched_t _xmpacc_s_i = _xmpacc_range_sched(&_xmpacc_r_i,
                        (_xmpacc_cell_3 / 1) % 3, 0, 1);
                    for (i = _xmpacc_s_i.first; i <= _xmpacc_s_i.last; i += 1)
                        if (_xmpacc_r_i.in_e[(_xmpacc_cell_3 / 1) % 3]
                            != _xmpacc_r_i.in_o[(_xmpacc_cell_3 / 1) % 3])
                        _xmpacc_hp_a[_XMPACC_L(_xmpacc_ha_a, 0, i)] = 1;
                }
            }
        }
    }
}
""")


def test_peel_and_wait(tmp_path: Path) -> None:
    """the interior, wait_async, then the rim."""
    assert_lowered(tmp_path, DECLS + """
void f(void)
{
    int i;
    double s = 0;
#pragma xmp loop on t[i] peel_and_wait(3, 1)
    for (i = 1; i < 99; i++) s += a[i - 1];
}
""", """
void f(void)
{
    int i;
    double s = 0;
    {
        {
            _xmpacc_array_t _xmpacc_ha_a = _xmpacc_a_a;
            double * restrict const _xmpacc_hp_a = a;
            {
                _xmpacc_range_t _xmpacc_r_i = _xmpacc_range(&_xmpacc_t_t.dim[0], 1, 99 - 1, 1, -1, -1, 0);
                _xmpacc_sched_t _xmpacc_s_i = _xmpacc_schedule_span(1, 1, _xmpacc_r_i.elo, _xmpacc_r_i.ehi);
                for (i = _xmpacc_s_i.first; i <= _xmpacc_s_i.last; i += 1)
                    s += _xmpacc_hp_a[_XMPACC_L(_xmpacc_ha_a, 0, i - 1)];
            }
        }
        _xmpacc_wait_async("unit.c:12", 1, (const long long []){3}, 0, 0);
        {
            _xmpacc_array_t _xmpacc_ha_a = _xmpacc_a_a;
            double * restrict const _xmpacc_hp_a = a;
            for (int _xmpacc_cell_1 = 0; _xmpacc_cell_1 < 3; _xmpacc_cell_1++)
            {
                {
                    _xmpacc_range_t _xmpacc_r_i = _xmpacc_range(&_xmpacc_t_t.dim[0], 1, 99 - 1, 1, -1, -1, 0);
                    _xmpacc_sched_t _xmpacc_s_i = _xmpacc_range_sched(&_xmpacc_r_i,
                        (_xmpacc_cell_1 / 1) % 3, 1, 1);
                    for (i = _xmpacc_s_i.first; i <= _xmpacc_s_i.last; i += 1)
                        if (_xmpacc_r_i.in_e[(_xmpacc_cell_1 / 1) % 3]
                            != _xmpacc_r_i.in_o[(_xmpacc_cell_1 / 1) % 3])
                        s += _xmpacc_hp_a[_XMPACC_L(_xmpacc_ha_a, 0, i - 1)];
                }
            }
        }
    }
}
""")
