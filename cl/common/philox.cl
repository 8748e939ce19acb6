/* Philox4x32-10 (Salmon et al., SC'11): a counter-based generator, so any work-item draws the
 * numbers of any (counter, key) without state or order, and every device draws the same. */

uint4 philox4x32_10(uint4 counter, uint2 key) {
    for (int round = 0; round < 10; round++) {
        const uint hi0 = mul_hi(0xD2511F53u, counter.x), lo0 = 0xD2511F53u * counter.x;
        const uint hi1 = mul_hi(0xCD9E8D57u, counter.z), lo1 = 0xCD9E8D57u * counter.z;
        counter = (uint4)(hi1 ^ counter.y ^ key.x, lo1, hi0 ^ counter.w ^ key.y, lo0);
        key += (uint2)(0x9E3779B9u, 0xBB67AE85u);
    }
    return counter;
}

/* A uniform float in [0, 1) from the top 24 bits. */
float uniform_from_bits(uint bits) {
    return (float)(bits >> 8) * 0x1.0p-24f;
}
