#!/usr/bin/env python3
"""xxh64.py FILE: the XXH64 hash (seed 0) of FILE's bytes as 16 hex digits, computed here from
the algorithm's specification (github.com/Cyan4973/xxHash, doc/xxhash_spec.md) so that a test
checks clpart's hash against an independent one; it checks itself against the reference
vectors first."""
import sys

P1, P2, P3 = 0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9
P4, P5 = 0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5
MASK = (1 << 64) - 1


def rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & MASK


def accumulate(acc, lane):
    return (rotl((acc + lane * P2) & MASK, 31) * P1) & MASK


def merge(acc, value):
    return ((acc ^ accumulate(0, value)) * P1 + P4) & MASK


def xxh64(data, seed=0):
    n, i = len(data), 0
    lane = lambda at, size: int.from_bytes(data[at:at + size], "little")
    if n >= 32:
        v = [(seed + P1 + P2) & MASK, (seed + P2) & MASK, seed, (seed - P1) & MASK]
        while i + 32 <= n:
            v = [accumulate(v[k], lane(i + 8 * k, 8)) for k in range(4)]
            i += 32
        h = (rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18)) & MASK
        for value in v:
            h = merge(h, value)
    else:
        h = (seed + P5) & MASK
    h = (h + n) & MASK
    while i + 8 <= n:
        h = (rotl(h ^ accumulate(0, lane(i, 8)), 27) * P1 + P4) & MASK
        i += 8
    if i + 4 <= n:
        h = (rotl(h ^ ((lane(i, 4) * P1) & MASK), 23) * P2 + P3) & MASK
        i += 4
    while i < n:
        h = (rotl(h ^ ((data[i] * P5) & MASK), 11) * P1) & MASK
        i += 1
    h = ((h ^ (h >> 33)) * P2) & MASK
    h = ((h ^ (h >> 29)) * P3) & MASK
    return h ^ (h >> 32)


# the reference implementation's values (xxhsum)
assert xxh64(b"") == 0xEF46DB3751D8E999
assert xxh64(b"a") == 0xD24EC4F1A98C6E5B
assert xxh64(b"abc") == 0x44BC2CF5AD770999
assert xxh64(b"Nobody inspects the spammish repetition") == 0xFBCEA83C8A378BF1

if __name__ == "__main__":
    print("%016x" % xxh64(open(sys.argv[1], "rb").read()))
