/* Pennycook's Φ and the arithmetic mean beside it, against hand computations: the harmonic
 * mean of the efficiencies, 0 as soon as one device of the set cannot run the workload; the
 * arithmetic mean, such a device counting 0. */
#include "test.h"

static void expect(const double *e, size_t n, double phi, double mean) {
    const double got = clp_phi(e, n), got_mean = clp_efficiency_mean(e, n);
    if (fabs(got - phi) > 1e-15 * fmax(1.0, phi))
        CLP_TEST_FAIL("phi of %zu efficiencies: %.17g, by hand %.17g", n, got, phi);
    if (fabs(got_mean - mean) > 1e-15 * fmax(1.0, mean))
        CLP_TEST_FAIL("mean of %zu efficiencies: %.17g, by hand %.17g", n, got_mean, mean);
}

int main(void) {
    /* 3 / (1/0.5 + 1/0.25 + 1/1) = 3 / 7; (0.5 + 0.25 + 1) / 3 = 1.75 / 3 */
    expect((const double[]){0.5, 0.25, 1.0}, 3, 3.0 / 7.0, 1.75 / 3.0);
    /* two devices at 0.8 and 0.2: 2 / (1.25 + 5) = 0.32, below their mean 0.5 */
    expect((const double[]){0.8, 0.2}, 2, 0.32, 0.5);
    expect((const double[]){0.6}, 1, 0.6, 0.6);
    /* a device that cannot run it makes the set's Φ 0; the mean counts it 0: 1.6 / 3 */
    expect((const double[]){0.9, 0.0, 0.7}, 3, 0.0, 1.6 / 3.0);
    expect((const double[]){0.9, NAN}, 2, 0.0, 0.45);
    expect(NULL, 0, 0.0, 0.0);
    return 0;
}
