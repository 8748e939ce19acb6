/* Philox4x32-10, written out for the device tests from Salmon et al. (SC'11), independently of
 * cl/common/philox.cl: the PSO start and the search model's displacements are checked
 * against it. */
#ifndef CLPART_TEST_CL_PHILOX_H
#define CLPART_TEST_CL_PHILOX_H

#include <stdint.h>
#include <string.h>

static void philox(uint32_t ctr[4], const uint32_t key_in[2]) {
    uint32_t key[2] = {key_in[0], key_in[1]};
    for (int round = 0; round < 10; round++) {
        const uint64_t a = (uint64_t)0xD2511F53u * ctr[0], b = (uint64_t)0xCD9E8D57u * ctr[2];
        const uint32_t next[4] = {(uint32_t)(b >> 32) ^ ctr[1] ^ key[0], (uint32_t)b,
                                  (uint32_t)(a >> 32) ^ ctr[3] ^ key[1], (uint32_t)a};
        memcpy(ctr, next, sizeof next);
        key[0] += 0x9E3779B9u;
        key[1] += 0xBB67AE85u;
    }
}

#endif
