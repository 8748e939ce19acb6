/* Performance portability (Pennycook, Sewall and Lee, 2016): the harmonic mean of an
 * application's efficiencies over a set of platforms, 0 when any platform cannot run it; and
 * the arithmetic mean that Marowka (2023) reports beside it. */
#include "internal.h"

#include <math.h>

double clp_phi(const double *efficiencies, size_t n) {
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(efficiencies[i] > 0) || !isfinite(efficiencies[i]))
            return 0.0; /* unsupported on one platform: not portable to the set */
        sum += 1.0 / efficiencies[i];
    }
    return n ? (double)n / sum : 0.0;
}

double clp_efficiency_mean(const double *efficiencies, size_t n) {
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += efficiencies[i] > 0 && isfinite(efficiencies[i]) ? efficiencies[i] : 0.0;
    return n ? sum / (double)n : 0.0;
}
