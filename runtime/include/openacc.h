/* openacc.h: the OpenACC runtime library of xmpacc, in xmpacc_openacc.h (the host C that
 * xmpacc writes includes that name: a compiler's own openacc.h cannot stand in for it). */
#include "xmpacc_openacc.h"
