/* xmpacc_rt.h: the runtime calls that generated host C may make.
 * Generated from runtime/contract.py (python -m xmpacc.runtime.contract); do not edit. */
#ifndef XMPACC_RT_H
#define XMPACC_RT_H

void _xmpacc_nodes_init(void * nodes, const char * where, const char * name, int ndims, const int * extents);
void _xmpacc_template_init(void * tmpl, const char * where, const char * name, int ndims, const long long * bounds);
void _xmpacc_distribute(void * tmpl, const char * where, const void * nodes, const int * kinds, const long long * widths, const void * gblock_maps);
void * _xmpacc_align(void * array, const char * where, const char * name, const void * tmpl, long long elem_size, int ndims, const long long * extents, const int * tdims, const long long * offsets, const long long * shadows);
void _xmpacc_array_release(void * array);
void _xmpacc_reflect(void * array, const char * where, const long long * widths);
void _xmpacc_reflect_acc(void * array, const char * where, const long long * widths);
void _xmpacc_reflect_orthogonal(void * array, const char * where, const long long * widths);
void _xmpacc_reflect_init(void * array, const char * where, const long long * widths, int orthogonal);
void _xmpacc_reflect_do(void * array, const char * where);
void _xmpacc_reduce_shadow(void * array, const char * where, const long long * widths, int type);
void _xmpacc_loop_reduce_begin(const void * tmpl, const int * loop_dims, void * data, long long count, int type, int op);
void _xmpacc_loop_reduce(const void * tmpl, const char * where, const int * loop_dims, void * data, long long count, int type, int op);
void _xmpacc_reduce(void * data, const char * where, long long count, int type, int op, const void * on_nodes, const long long * on_ref);
void _xmpacc_loop_reduce_var_begin(const void * tmpl, const int * loop_dims, void * data, const long long * var, int op);
void _xmpacc_loop_reduce_var(const void * tmpl, const char * where, const int * loop_dims, void * data, const long long * var, int op, int nloc, const void * loc_addrs, const void * loc_vars, int nkey, const long long * key);
void _xmpacc_reduce_var(const char * where, void * data, const long long * var, int op, const void * on_nodes, const long long * on_ref, int nloc, const void * loc_addrs, const void * loc_vars);
void _xmpacc_bcast(void * data, const char * where, long long nbytes, const void * from_nodes, const long long * from_ref, const void * on_nodes, const long long * on_ref);
void _xmpacc_barrier(const char * where, const void * on_nodes, const long long * on_ref);
void _xmpacc_async_begin(long long async_id);
void _xmpacc_async_end(void);
void _xmpacc_wait_async(const char * where, int n, const long long * ids, const void * on_nodes, const long long * on_ref);
int _xmpacc_test_async(long long async_id);
int _xmpacc_task_begin(const char * where, const void * nodes, const long long * ref);
void _xmpacc_task_end(void);
int _xmpacc_task_nocomm(const char * where, const void * nodes, const long long * ref);
int _xmpacc_tasks_begin(const char * where, int n, const void * descs, const void * refs, const void * wheres);
int _xmpacc_tasks_enter(int mine, int k);
void _xmpacc_tasks_end(void);
void _xmpacc_nodes_subset(void * nodes, const char * where, const char * name, int ndims, const int * extents, const void * parent, const long long * ref);
int _xmpacc_replicate_begin(const char * where, int n, const void * keys, const long long * sizes, const void * names);
void _xmpacc_replicate_end(int region);
void _xmpacc_replicate_sync(const char * where, int direction, const void * key, const char * name);
int _xmpacc_acc_data_begin(const char * where, int n, const void * keys, const long long * sizes, const void * names, const long long * kinds, const void * secs, int cond);
void _xmpacc_acc_data_end(int region);
void _xmpacc_acc_enter_data(const char * where, int n, const void * keys, const long long * sizes, const void * names, const long long * kinds, const void * secs, int cond, long long queue);
void _xmpacc_acc_exit_data(const char * where, int n, const void * keys, const long long * sizes, const void * names, const long long * kinds, const void * secs, int flags);
void _xmpacc_acc_update(const char * where, int direction, const void * key, long long size, const char * name, const long long * sec, int flags, long long queue);
void _xmpacc_acc_wait(const char * where, int n, const long long * queues);
void * _xmpacc_acc_deviceptr(const char * where, const void * key, const char * name);
void _xmpacc_acc_swap(const char * where, const void * key, long long size, const char * name);
void _xmpacc_reflect_init_acc(void * array, const char * where, const long long * widths, int orthogonal);
void _xmpacc_reflect_orthogonal_acc(void * array, const char * where, const long long * widths);
void _xmpacc_reflect_do_acc(void * array, const char * where);
void _xmpacc_launch(const char * where, const char * kernel, long long total, long long nthreads, int nparams, const void * args, const long long * kinds);
int _xmpacc_acc_compute_begin(const char * where, int n, const void * keys, const long long * sizes, const void * names, const int * modes);
void _xmpacc_acc_compute_end(int region);
void _xmpacc_device_wait(void);
void _xmpacc_section_error(const char * where, int what, const char * name, const long long * a, const long long * b);
void _xmpacc_bcast_section(void * base, const char * where, const long long * sec, const void * from_nodes, const long long * from_ref, const void * on_nodes, const long long * on_ref);
void _xmpacc_gmove(const char * where, int mode, const void * lhs_array, void * lhs_base, const long long * lhs_sec, const void * rhs_array, void * rhs_base, const long long * rhs_sec);
void _xmpacc_gmove_rma_init(void);
void _xmpacc_exit_hook(int status);
void _xmpacc_nodes_release(void * nodes);
void _xmpacc_template_release(void * tmpl);
void _xmpacc_template_fix(void * tmpl, const char * where, const long long * bounds, const void * gblock_maps);
void _xmpacc_align_pointer(void * array, const char * where, const char * name, const void * tmpl, long long elem_size, int ndims, const int * tdims, const long long * offsets, const long long * shadows);
void * _xmpacc_malloc(void * array, const char * where, int n, const long long * extents, void * base);
void _xmpacc_free(void * base, const char * where);
long long _xmpacc_not_ready(const void * desc, const char * where);
void _xmpacc_release_range(void * base, long long nbytes);
int _xmpacc_gblock_map(const void * tmpl, int tdim, int * map);
long long _xmpacc_mpi_comm(void);
int _xmpacc_mpi_thread_level(void);
void _xmpacc_gather(const char * where, int n, const void * descs, const int * types);
void _xmpacc_scatter(const char * where, int n, const void * descs, const int * types);
void _xmpacc_pack(const char * where, int n, const void * descs, const int * types);
void _xmpacc_unpack(const char * where, int n, const void * descs, const int * types);
void _xmpacc_matmul(const char * where, int n, const void * descs, const int * types);
void _xmpacc_transpose(const char * where, const void * dst, const void * src, int opt);
void _xmpacc_sort(const char * where, const void * dst, const void * src, int type, int descending);
void _xmpacc_check_fail(const void * array, int what, const long long * globals, const char * file, int line);

#endif
