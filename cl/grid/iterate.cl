/* The iteration API that model kernels use, so that a model never knows whether lists of
 * indices, lists of bits or cell searches (neighbors.mode, neighbors.format) are on. In a
 * kernel whose parameters begin with CLP_GRID_PARAMS:
 *     uint j; float4 r_ij, v_j;
 *     CLP_FOR_EACH_NEIGHBOR(i, j, r_ij) { ... }        // r_ij = x_j - x_i within the radius, w 0
 *     CLP_FOR_EACH_NEIGHBOR_OF_TYPE(i, t, j, r_ij) { ... }   // the neighbours of type t
 *     CLP_FOR_EACH_NEIGHBOR_WITH(i, j, r_ij, vel, v_j) { ... } // and v_j = vel[j]
 * and in the loop's body CLP_NEIGHBOR_POS(j), the neighbour's pos[] entry, w included.
 * A stored list is read a candidate ahead: the loop finds the next candidate and loads its
 * position and its entry of the carried array before the body runs on the current one, so
 * that those loads overlap the body's arithmetic instead of stalling in front of it. The SPH
 * forces of a 3D dam break took 9 % less time so on an H200 (docs/benchmarks/sph.md). */

/* The loops' unrolling (CLP_NEIB_LOOP) is a hint: clang-based compilers (PoCL, Oclgrind)
 * warn where they cannot take it, which is no fault of the program. */
#ifdef __clang__
#pragma clang diagnostic ignored "-Wpass-failed"
#endif

#if CLP_NEIGHBORS_MODE == CLP_NEIGHBORS_MODE_LIST

/* Finds the candidate after the current one and loads what the loop needs of it. `valid`
 * is an index that may be read in its place once the candidates have run out. */
void neib_fetch_ahead(neib_iter *it, CLP_GRID_FN_PARAMS, __global const float4 *data,
                      uint valid, bool carries) {
    const uint next = neib_candidate(it, CLP_GRID_ARGS, &it->step_ahead);
    const uint at = next == CLP_NEIB_END ? valid : next;
    it->ahead = next;
    it->pos_ahead = pos[at];
    it->data_ahead = carries ? data[at] : (float4)(0.0f);
}

neib_iter *neib_begin(neib_iter *it, uint i, int want_type, CLP_GRID_FN_PARAMS,
                      __global const float4 *data, bool carries) {
    neib_start(it, i, want_type, CLP_GRID_ARGS);
    neib_fetch_ahead(it, CLP_GRID_ARGS, data, i, carries);
    return it;
}

/* Hands out the next candidate, j with r_ij and, when the loop carries an array, its entry
 * in d_j, after loading the one after it; false after the last. Whether it is a neighbour
 * is neib_accepts's: a test in the loop itself rather than a loop over candidates in here,
 * as that nested loop made the SPH forces slower than without the read-ahead (H200). */
bool neib_step(neib_iter *it, CLP_GRID_FN_PARAMS, __global const float4 *data, bool carries,
               uint *j, float4 *r_ij, float4 *d_j) {
    const uint candidate = it->ahead;
    if (candidate == CLP_NEIB_END)
        return false;
    const float4 pos_j = it->pos_ahead, data_j = it->data_ahead;
    const int4 step_j = it->step_ahead;
    neib_fetch_ahead(it, CLP_GRID_ARGS, data, candidate, carries);
    *j = candidate;
    *r_ij = particle_delta(it->pos_i, pos_j, step_j);
    it->pos_j = pos_j;
    if (carries)
        *d_j = data_j;
    return true;
}

/* Whether the candidate handed out is a neighbour: within the radius, of the wanted type. */
bool neib_accepts(const neib_iter *it, __global uint *type, uint j, float4 r_ij) {
    return dot(r_ij.xyz, r_ij.xyz) <= CLP_RADIUS2 &&
           (it->want_type < 0 || type[j] == (uint)it->want_type);
}

#if !CLP_NEIGHBORS_SPLIT && !CLP_NEIGHBORS_BITS
/* The iteration of lane `lane` of the CLP_GRID_LIST_LANES work-items that read particle i's
 * plain list together: slots lane, lane + LANES, ... */
neib_iter *neib_begin_lane(neib_iter *it, uint i, uint lane, CLP_GRID_FN_PARAMS) {
    neib_start(it, i, -1, CLP_GRID_ARGS);
    it->k = (int)lane;
    it->stride = CLP_GRID_LIST_LANES;
    neib_fetch_ahead(it, CLP_GRID_ARGS, 0, i, false);
    return it;
}
#endif

#endif

/* The outer for runs once and only holds the iterator; the while takes the candidates and
 * the if passes the neighbours among them to the body; break and continue in the body act on
 * the while, as in a plain loop. The while is unrolled twice, so that the compiler can let
 * the candidate loaded ahead and the current one trade registers rather than copy one into
 * the other (the SPH forces 6 % faster, NVIDIA H200). `carries` says, as a constant, whether
 * the loop carries an array: the compiler cannot tell from the pointer, and its test put a
 * compare and four selects in the SPH forces' loop. */
#define CLP_NEIB_LOOP(begin, j, r_ij, data, carries, d_j)                                         \
    for (neib_iter it_##j, *once_##j = (begin); once_##j; once_##j = 0)                           \
        _Pragma("unroll 2") while (neib_step(&it_##j, CLP_GRID_ARGS, (data), (carries), &(j),     \
                                             &(r_ij), (d_j)))                                     \
            if (!neib_accepts(&it_##j, type, (j), (r_ij))) {                                      \
            } else
#define CLP_FOR_EACH_NEIGHBOR_OF_TYPE(i, t, j, r_ij)                                              \
    CLP_NEIB_LOOP(neib_begin(&it_##j, (i), (t), CLP_GRID_ARGS, 0, false), j, r_ij, 0, false, 0)
#define CLP_FOR_EACH_NEIGHBOR(i, j, r_ij) CLP_FOR_EACH_NEIGHBOR_OF_TYPE(i, -1, j, r_ij)
#define CLP_FOR_EACH_NEIGHBOR_WITH(i, j, r_ij, data, d_j)                                         \
    CLP_NEIB_LOOP(neib_begin(&it_##j, (i), -1, CLP_GRID_ARGS, (data), true), j, r_ij, data, true, \
                  &(d_j))
#define CLP_NEIGHBOR_POS(j) (it_##j.pos_j)
#if CLP_NEIGHBORS_MODE == CLP_NEIGHBORS_MODE_LIST && !CLP_NEIGHBORS_SPLIT && !CLP_NEIGHBORS_BITS
/* Lane `lane`'s share of particle i's neighbours, in a plain list read by
 * CLP_GRID_LIST_LANES work-items together. */
#define CLP_FOR_EACH_NEIGHBOR_LANE(i, lane, j, r_ij)                                              \
    CLP_NEIB_LOOP(neib_begin_lane(&it_##j, (i), (lane), CLP_GRID_ARGS), j, r_ij, 0, false, 0)
#endif
