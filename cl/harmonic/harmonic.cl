/* N independent harmonic oscillators in 3D, x'' = -omega^2 x, a work-item a particle
 * (src/models/harmonic/harmonic.c). The prelude defines CLP_HARMONIC_OMEGA and CLP_HARMONIC_DT
 * from the options (options/harmonic.json); positions and velocities are float4, w unused. */

/* The half kick's factor: dt / 2 times omega^2 (the acceleration is -omega^2 x). */
#define HARMONIC_HALF_KICK (0.5f * CLP_HARMONIC_DT * CLP_HARMONIC_OMEGA * CLP_HARMONIC_OMEGA)

/* `steps` velocity Verlet steps: half kick, drift, half kick, in registers. */
kernel void harmonic_verlet(global float4 *pos, global float4 *vel, uint n, uint steps) {
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    float4 x = pos[i], v = vel[i];
    for (uint s = 0; s < steps; s++) {
        v -= HARMONIC_HALF_KICK * x;
        x += CLP_HARMONIC_DT * v;
        v -= HARMONIC_HALF_KICK * x;
    }
    pos[i] = x;
    vel[i] = v;
}

/* Each particle's kinetic and potential energy (unit mass), v^2 / 2 and omega^2 x^2 / 2, at
 * 2i and 2i + 1: two floats, as a float2 literal stored whole is an uninitialised value to
 * Oclgrind 21.10. */
kernel void harmonic_energy(global const float4 *pos, global const float4 *vel,
                            global float *energy, uint n) {
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    const float4 x = pos[i], v = vel[i];
    energy[2 * i] = 0.5f * dot(v, v);
    energy[2 * i + 1] = 0.5f * CLP_HARMONIC_OMEGA * CLP_HARMONIC_OMEGA * dot(x, x);
}
