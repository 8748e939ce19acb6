#!/usr/bin/env python3
"""What PoCL's compiler vectorises, kernel by kernel: runs a case for a few steps on a PoCL
device with a fresh cache and POCL_VECTORIZER_REMARKS=1, and sorts LLVM's loop-vectorizer
remarks under the kernel whose work-group function they came from. PoCL runs a work-group
as a loop over its work-items and leaves that loop to LLVM's loop vectorizer: a vectorised
work-item loop runs that many work-items in the lanes of one SIMD register. Each row gives
the widths vectorised, or LLVM's reasons for not vectorising.

usage: bench/pocl_vectorised.py BUILD_DIR CASE [STEPS] [-s NAME=VALUE]..."""
import collections
import os
import re
import subprocess
import sys
import tempfile


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.split("\n\n")[-1])
    build, case = sys.argv[1], sys.argv[2]
    rest = sys.argv[3:]
    steps = rest.pop(0) if rest and not rest[0].startswith("-") else "2"
    with tempfile.TemporaryDirectory() as work:
        env = dict(os.environ, POCL_VECTORIZER_REMARKS="1", POCL_KERNEL_CACHE="0",
                   POCL_DEBUG="llvm",
                   CLPART_CACHE_DIR=os.path.join(work, "cache"))
        done = subprocess.run([os.path.join(build, "tools", "clpart"), "--device", "cpu", "run",
                               case, "--steps", steps, "--out", os.path.join(work, "out")] + rest,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    if done.returncode != 0:
        sys.exit("pocl_vectorised: the run failed:\n" + done.stdout[-2000:])
    # PoCL compiles a kernel's work-group function when the kernel is first launched, and ends
    # with its code generation (which POCL_DEBUG=llvm reports): between two of those, the
    # remarks are that kernel's, and it is named where its body is inlined into the
    # work-group function.
    found = collections.OrderedDict()
    log = done.stdout.replace("POCL: in fn", "<unknown>:0:0: POCL: in fn")
    segment = []
    for remark in log.split("<unknown>:0:0: "):
        if not (remark.startswith("POCL: in fn") and "codegen" in remark):
            segment.append(remark.split("[")[0].strip())
            continue
        names = [m.group(1) for r in segment
                 for m in [re.match(r"'_pocl_kernel_(\w+?)' inlined into '_pocl_kernel_", r)] if m]
        if names:
            counts = found.setdefault(names[0], collections.Counter())
            for text in segment:
                width = re.match(r"vectorized loop \(vectorization width: (\d+)", text)
                if width:
                    counts["width " + width.group(1)] += 1
                elif text.startswith("loop not vectorized: "):
                    counts[text[len("loop not vectorized: "):]] += 1
                elif "indicates that vectorization is not beneficial" in text:
                    counts["not beneficial by the cost model"] += 1
        segment = []
    print("| kernel | vectorised | reasons LLVM gives where not |")
    print("| --- | --- | --- |")
    for name, counts in found.items():
        widths = sorted({k for k in counts if k.startswith("width")})
        reasons = [k for k in counts if not k.startswith("width")]
        print(f"| `{name}` | {', '.join(widths) if widths else 'no'} | "
              f"{'; '.join(reasons) if reasons else ''} |")


if __name__ == "__main__":
    main()
