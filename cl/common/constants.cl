/* The model's physical constants are inlined as #defines unless core.inline_constants is
 * false; then the prelude defines each as clp_constants[k], read from a __constant buffer that
 * every kernel using them takes as its CLP_BUF_CONSTANTS parameter through
 * CLP_CONSTANTS_PARAM (seed particle-systems-gpusph-design.txt 6.2.2). Helper functions take
 * no constants, so they compile either way. */

#ifndef CLP_CORE_INLINE_CONSTANTS
#define CLP_CORE_INLINE_CONSTANTS 1
#endif

#if CLP_CORE_INLINE_CONSTANTS
#define CLP_CONSTANTS_PARAM
#else
#define CLP_CONSTANTS_PARAM , __constant const float *restrict clp_constants
#endif
