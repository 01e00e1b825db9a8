/* xmpacc_unit.h: what each compiled XMP file tells the link step and the runtime.
 *
 * Every file with directives has one record (generated NAME.record.h, included at the end
 * of its host C) and puts a pointer to it in the section xmpacc_units.  The linker lays
 * these pointers out in link order, and the program's glue walks them between the
 * symbols __start_xmpacc_units and __stop_xmpacc_units that it defines: so the start-up
 * code of the files runs in link order, and the runtime finds the kernels of every file,
 * whether the files were compiled in one command or separately (xmpacc -c, ar, ...).
 *
 * abi points at _xmpacc_abi_v<version>__<contract>, which only the glue of the same
 * xmpacc defines: linking an object of another xmpacc fails with an undefined reference
 * that names both versions (xmpacc/ccmessages.py). */
#ifndef XMPACC_UNIT_H
#define XMPACC_UNIT_H

typedef struct _xmpacc_unit {
  const char *abi;          /* "<version> <contract>" of the xmpacc that compiled it */
  const char *source;       /* the file as named on the command line */
  void (*init)(void);       /* its start-up code: file-scope nodes, templates, arrays */
  const char *kernels;      /* its loop ... acc kernels (the .cu source), or 0 */
} _xmpacc_unit_t;

#define _XMPACC_UNIT_SECTION __attribute__((section("xmpacc_units"), used))

/* The records of the module (program or shared library) this code is linked into. */
extern _xmpacc_unit_t *__start_xmpacc_units[] __attribute__((visibility("hidden")));
extern _xmpacc_unit_t *__stop_xmpacc_units[] __attribute__((visibility("hidden")));

#endif
