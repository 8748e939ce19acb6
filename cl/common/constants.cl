/* The model's physical constants are inlined as #defines unless core.inline_constants is
 * false; then the prelude defines each as clp_constants[k], read from a __constant buffer that
 * every kernel using them takes as its CLP_BUF_CONSTANTS parameter through
 * CLP_CONSTANTS_PARAM (Bilotta et al. 2018, 6.2.2). A helper function that
 * uses them ends its parameters with CLP_CONSTANTS_FN_PARAM and is called with
 * CLP_CONSTANTS_ARG after its last argument, so it compiles either way. */

#ifndef CLP_CORE_INLINE_CONSTANTS
#define CLP_CORE_INLINE_CONSTANTS 1
#endif

#if CLP_CORE_INLINE_CONSTANTS
#define CLP_CONSTANTS_PARAM
#define CLP_CONSTANTS_FN_PARAM
#define CLP_CONSTANTS_ARG
#else
#define CLP_CONSTANTS_PARAM , __constant const float *restrict clp_constants
#define CLP_CONSTANTS_FN_PARAM , __constant const float *clp_constants
#define CLP_CONSTANTS_ARG , clp_constants
#endif
