/* Pennycook's Φ against hand computations: the harmonic mean of the efficiencies, and 0 as
 * soon as one device of the set cannot run the workload. */
#include "test.h"

static void expect(const double *e, size_t n, double want) {
    const double got = clp_phi(e, n);
    if (fabs(got - want) > 1e-15 * fmax(1.0, want))
        CLP_TEST_FAIL("phi of %zu efficiencies: %.17g, by hand %.17g", n, got, want);
}

int main(void) {
    /* 3 / (1/0.5 + 1/0.25 + 1/1) = 3 / 7 */
    expect((const double[]){0.5, 0.25, 1.0}, 3, 3.0 / 7.0);
    /* two devices at 0.8 and 0.2: 2 / (1.25 + 5) = 0.32, below their mean 0.5 */
    expect((const double[]){0.8, 0.2}, 2, 0.32);
    expect((const double[]){0.6}, 1, 0.6);
    /* a device that cannot run it makes the set's Φ 0 */
    expect((const double[]){0.9, 0.0, 0.7}, 3, 0.0);
    expect((const double[]){0.9, NAN}, 2, 0.0);
    expect(NULL, 0, 0.0);
    return 0;
}
