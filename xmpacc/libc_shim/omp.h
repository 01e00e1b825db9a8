/* xmpacc's stand-in for <omp.h>, read by the front end only (XMP + OpenMP programs).
 *
 * pycparser needs the type names of the OpenMP runtime library to parse a program that
 * calls it; the values do not matter: the enumerators stay plain names, and the generated
 * host C includes the host compiler's own <omp.h>, which gives them their values.  The
 * declarations are those of OpenMP 5.1 that gcc's libgomp provides.  Like the real
 * header, this one works with or without -fopenmp (calls then need libgomp at the link). */
#ifndef _XMPACC_FAKE_OMP_H
#define _XMPACC_FAKE_OMP_H

#include "_fake_typedefs.h"

typedef struct { unsigned char _x[4]; } omp_lock_t;
typedef struct { unsigned char _x[16]; } omp_nest_lock_t;
typedef struct { unsigned char _x[16]; } omp_depend_t;
typedef uintptr_t omp_uintptr_t;

typedef enum omp_sched_t {
  omp_sched_static, omp_sched_dynamic, omp_sched_guided, omp_sched_auto, omp_sched_monotonic
} omp_sched_t;
typedef enum omp_proc_bind_t {
  omp_proc_bind_false, omp_proc_bind_true, omp_proc_bind_primary, omp_proc_bind_master,
  omp_proc_bind_close, omp_proc_bind_spread
} omp_proc_bind_t;
typedef enum omp_sync_hint_t {
  omp_sync_hint_none, omp_sync_hint_uncontended, omp_sync_hint_contended,
  omp_sync_hint_nonspeculative, omp_sync_hint_speculative,
  omp_lock_hint_none, omp_lock_hint_uncontended, omp_lock_hint_contended,
  omp_lock_hint_nonspeculative, omp_lock_hint_speculative
} omp_sync_hint_t;
typedef omp_sync_hint_t omp_lock_hint_t;
typedef enum omp_pause_resource_t { omp_pause_soft, omp_pause_hard } omp_pause_resource_t;
typedef enum omp_memspace_handle_t {
  omp_default_mem_space, omp_large_cap_mem_space, omp_const_mem_space, omp_high_bw_mem_space,
  omp_low_lat_mem_space
} omp_memspace_handle_t;
typedef enum omp_allocator_handle_t {
  omp_null_allocator, omp_default_mem_alloc, omp_large_cap_mem_alloc, omp_const_mem_alloc,
  omp_high_bw_mem_alloc, omp_low_lat_mem_alloc, omp_cgroup_mem_alloc, omp_pteam_mem_alloc,
  omp_thread_mem_alloc
} omp_allocator_handle_t;
typedef enum omp_alloctrait_key_t {
  omp_atk_sync_hint, omp_atk_alignment, omp_atk_access, omp_atk_pool_size, omp_atk_fallback,
  omp_atk_fb_data, omp_atk_pinned, omp_atk_partition
} omp_alloctrait_key_t;
typedef enum omp_alloctrait_value_t {
  omp_atv_default, omp_atv_false, omp_atv_true, omp_atv_contended, omp_atv_uncontended,
  omp_atv_serialized, omp_atv_sequential, omp_atv_private, omp_atv_all, omp_atv_thread,
  omp_atv_pteam, omp_atv_cgroup, omp_atv_default_mem_fb, omp_atv_null_fb, omp_atv_abort_fb,
  omp_atv_allocator_fb, omp_atv_environment, omp_atv_nearest, omp_atv_blocked,
  omp_atv_interleaved
} omp_alloctrait_value_t;
typedef struct omp_alloctrait_t { omp_alloctrait_key_t key; omp_uintptr_t value; } omp_alloctrait_t;
typedef enum omp_event_handle_t { __omp_event_handle_t_max__ } omp_event_handle_t;

/* threads and teams */
void omp_set_num_threads(int);
int omp_get_num_threads(void);
int omp_get_max_threads(void);
int omp_get_thread_num(void);
int omp_get_num_procs(void);
int omp_in_parallel(void);
void omp_set_dynamic(int);
int omp_get_dynamic(void);
void omp_set_nested(int);
int omp_get_nested(void);
void omp_set_schedule(omp_sched_t, int);
void omp_get_schedule(omp_sched_t *, int *);
int omp_get_thread_limit(void);
void omp_set_max_active_levels(int);
int omp_get_max_active_levels(void);
int omp_get_supported_active_levels(void);
int omp_get_level(void);
int omp_get_ancestor_thread_num(int);
int omp_get_team_size(int);
int omp_get_active_level(void);
int omp_in_final(void);
int omp_get_cancellation(void);
omp_proc_bind_t omp_get_proc_bind(void);
int omp_get_num_places(void);
int omp_get_place_num_procs(int);
void omp_get_place_proc_ids(int, int *);
int omp_get_place_num(void);
int omp_get_partition_num_places(void);
void omp_get_partition_place_nums(int *);
int omp_get_num_teams(void);
int omp_get_team_num(void);
void omp_set_num_teams(int);
int omp_get_max_teams(void);
void omp_set_teams_thread_limit(int);
int omp_get_teams_thread_limit(void);
int omp_get_max_task_priority(void);
void omp_fulfill_event(omp_event_handle_t);
void omp_set_affinity_format(const char *);
size_t omp_get_affinity_format(char *, size_t);
void omp_display_affinity(const char *);
size_t omp_capture_affinity(char *, size_t, const char *);
int omp_pause_resource(omp_pause_resource_t, int);
int omp_pause_resource_all(omp_pause_resource_t);
void omp_display_env(int);

/* locks */
void omp_init_lock(omp_lock_t *);
void omp_init_lock_with_hint(omp_lock_t *, omp_sync_hint_t);
void omp_destroy_lock(omp_lock_t *);
void omp_set_lock(omp_lock_t *);
void omp_unset_lock(omp_lock_t *);
int omp_test_lock(omp_lock_t *);
void omp_init_nest_lock(omp_nest_lock_t *);
void omp_init_nest_lock_with_hint(omp_nest_lock_t *, omp_sync_hint_t);
void omp_destroy_nest_lock(omp_nest_lock_t *);
void omp_set_nest_lock(omp_nest_lock_t *);
void omp_unset_nest_lock(omp_nest_lock_t *);
int omp_test_nest_lock(omp_nest_lock_t *);

/* timing */
double omp_get_wtime(void);
double omp_get_wtick(void);

/* devices */
void omp_set_default_device(int);
int omp_get_default_device(void);
int omp_get_num_devices(void);
int omp_get_device_num(void);
int omp_is_initial_device(void);
int omp_get_initial_device(void);
void *omp_target_alloc(size_t, int);
void omp_target_free(void *, int);
int omp_target_is_present(const void *, int);
int omp_target_memcpy(void *, const void *, size_t, size_t, size_t, int, int);
int omp_target_memcpy_rect(void *, const void *, size_t, int, const size_t *, const size_t *,
                           const size_t *, const size_t *, const size_t *, int, int);
int omp_target_associate_ptr(const void *, const void *, size_t, size_t, int);
int omp_target_disassociate_ptr(const void *, int);

/* memory */
omp_allocator_handle_t omp_init_allocator(omp_memspace_handle_t, int, const omp_alloctrait_t []);
void omp_destroy_allocator(omp_allocator_handle_t);
void omp_set_default_allocator(omp_allocator_handle_t);
omp_allocator_handle_t omp_get_default_allocator(void);
void *omp_alloc(size_t, omp_allocator_handle_t);
void *omp_aligned_alloc(size_t, size_t, omp_allocator_handle_t);
void *omp_calloc(size_t, size_t, omp_allocator_handle_t);
void *omp_aligned_calloc(size_t, size_t, size_t, omp_allocator_handle_t);
void *omp_realloc(void *, size_t, omp_allocator_handle_t, omp_allocator_handle_t);
void omp_free(void *, omp_allocator_handle_t);

#endif
