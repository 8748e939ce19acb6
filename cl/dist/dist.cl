/* A rank's side of a multi-device run (seed particle-systems-gpusph-design.txt 4.5): where
 * its halo, edge and inner layers begin in the sorted order, and received particles pinned
 * to the layers the rank that sent them found them in. Needs cl/grid (grid.cl, sort.cl). */

/* Where each query key would go in the sorted keys: bounds[q] becomes the index of the first
 * of the n keys not below it. With the slab axis slowest in the key, a layer's particles
 * start at the lower bound of its first key. */
__kernel void dist_lower_bounds(__global const uint *restrict key, __global uint *restrict bounds,
                                const uint n, const uint queries) {
    const uint q = get_global_id(0);
    if (q >= queries)
        return;
    const uint wanted = bounds[q];
    uint low = 0, high = n;
    while (low < high) {
        const uint mid = low + (high - low) / 2;
        if (key[mid] < wanted)
            low = mid + 1;
        else
            high = mid;
    }
    bounds[q] = low;
}

float axis_component(float4 p, uint axis) {
    return axis == 0 ? p.x : axis == 1 ? p.y : p.z;
}

float4 with_axis_component(float4 p, uint axis, float v) {
    if (axis == 0)
        p.x = v;
    else if (axis == 1)
        p.y = v;
    else
        p.z = v;
    return p;
}

int layer_of(float4 p, uint axis) {
    return axis == 0 ? position_cell(p).x : axis == 1 ? position_cell(p).y : position_cell(p).z;
}

/* The particles at first .. first + count - 1 came from another rank, which found each in
 * layer low .. high of this rank's grid. Two devices may round a position on a layer's
 * boundary to different sides of it; so that both keep the same particles in the same order,
 * such a position moves by the fewest float steps into the layer range. One that is farther
 * off (a bug, not rounding) stays, counted in status[0]. */
__kernel void dist_pin(__global float4 *restrict pos, __global uint *restrict status,
                       const uint first, const uint count, const uint axis, const uint low,
                       const uint high) {
    const uint i = first + get_global_id(0);
    if (get_global_id(0) >= count)
        return;
    float4 p = pos[i];
    float x = axis_component(p, axis);
    for (int steps = 0; steps < 64; steps++) {
        const int layer = layer_of(with_axis_component(p, axis, x), axis);
        if (layer >= (int)low && layer <= (int)high) {
            pos[i] = with_axis_component(p, axis, x);
            return;
        }
        x = nextafter(x, layer < (int)low ? INFINITY : -INFINITY);
    }
    atomic_inc(&status[0]);
}
