/* The Lennard-Jones diagnostics: the sums over atoms of a sample read back from the device
 * (kinetic and potential energy, virial, momentum), packed for the ranks of a split run to add
 * up, and the row of diagnostics.csv they give: energies, temperature, pressure, momentum. */
#include "models/lj/lj_case.h"

#include <math.h>
#include <string.h>

void clp__lj_sums_pack(const clp__lj_sums *s, double out[CLP__LJ_SUMS]) {
    const double values[CLP__LJ_SUMS] = {s->atoms,       s->kinetic,     s->potential,  s->virial,
                                         s->momentum[0], s->momentum[1], s->momentum[2]};
    memcpy(out, values, sizeof values);
}

void clp__lj_sums_unpack(const double in[CLP__LJ_SUMS], clp__lj_sums *out) {
    *out = (clp__lj_sums){in[0], in[1], in[2], in[3], {in[4], in[5], in[6]}};
}

clp_status clp__lj_sums_add(const clp__lj_sample *s, const uint32_t *ids, const clp__lj_case *c,
                            uint64_t step, clp__lj_sums *sums, clp_error *err) {
    for (size_t i = 0; i < s->n; i++) {
        const double *v = s->velocity + 3 * i, *f = s->force + 3 * i;
        const char *bad = !isfinite(s->energy[i])         ? "potential energy"
                          : !isfinite(v[0] + v[1] + v[2]) ? "velocity"
                          : !isfinite(f[0] + f[1] + f[2]) ? "force"
                                                          : NULL;
        if (bad)
            return CLP_FAIL(err, CLP_CHECK,
                            "atom %zu has a non-finite %s at step %llu (checked every "
                            "output_every = %llu steps); a smaller lj.dt or a larger "
                            "lj.softening may help",
                            ids ? (size_t)ids[i] : i, bad, (unsigned long long)step,
                            (unsigned long long)c->output_every);
        sums->kinetic += 0.5 * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        sums->potential += s->energy[i];
        for (int a = 0; a < 3; a++)
            sums->momentum[a] += v[a];
    }
    sums->atoms += (double)s->n;
    sums->virial += s->virial;
    return CLP_OK;
}

clp_status clp__lj_row(const clp__lj_sums *sums, const clp__lj_case *c, uint64_t step,
                       double row[8], clp_error *err) {
    const double kinetic = sums->kinetic, potential = sums->potential, *momentum = sums->momentum;
    if (!isfinite(kinetic + potential + sums->virial))
        return CLP_FAIL(err, CLP_CHECK,
                        "a non-finite total at step %llu: kinetic %g, potential %g, virial %g",
                        (unsigned long long)step, kinetic, potential, sums->virial);
    const double n = sums->atoms, volume = c->box * c->box * c->box;
    const double temperature = 2.0 * kinetic / (3.0 * n - 3.0);
    row[0] = (double)step;
    row[1] = (double)step * c->dt;
    row[2] = kinetic;
    row[3] = potential;
    row[4] = kinetic + potential;
    row[5] = temperature;
    /* The kinetic part over the 3N - 3 degrees of freedom that zero total momentum leaves,
     * (N - 1) T / V = 2 KE / 3V, as LAMMPS computes it. */
    row[6] = ((n - 1.0) * temperature + sums->virial / 3.0) / volume;
    row[7] =
        sqrt(momentum[0] * momentum[0] + momentum[1] * momentum[1] + momentum[2] * momentum[2]);
    return CLP_OK;
}

clp_status clp__lj_diagnostics(const clp__lj_sample *s, const clp__lj_case *c, uint64_t step,
                               double row[8], clp_error *err) {
    clp__lj_sums sums = {0};
    clp_status st = clp__lj_sums_add(s, NULL, c, step, &sums, err);
    return st != CLP_OK ? st : clp__lj_row(&sums, c, step, row, err);
}
