#!/usr/bin/env bash
# Checkpoints of split SPH runs. A run split among two PoCL devices (and, in a build with MPI,
# two MPI ranks) and restarted on the same decomposition, from a checkpoint written after
# particles crossed between the slabs, ends bit for bit where an uninterrupted split run ends:
# the manifest, every piece and the last diagnostics row are identical. Restarted on another number of devices (2 -> 1, 2 -> 3, 1 -> 2, and 2 -> 2 with
# other weights) its particles are cut again: this script reads the final checkpoints itself
# and requires the same particle IDs in the computation (each once: no halo copy taken), the
# same fluid count, and the fluid's summed squared speed and front within 1e-4 of their size of
# the uninterrupted run's (the sums' order changes, as in multi_device.sh); the diagnostics'
# mass and excluded count exactly. Particles excluded before a checkpoint stay excluded, and
# counted, on any decomposition. A missing or damaged piece, a damaged manifest and other
# options are refused with one message naming the file, and no hang; an MPI rank killed
# mid-run leaves its last checkpoint whole. SIGUSR1 on a split run
# writes a checkpoint while it goes on; SIGTERM leaves one from which a restart in the same
# folder leaves every file as an uninterrupted run leaves it.
set -uo pipefail
clpart=$1
with_mpi=${2:-no}
. "$(dirname "$0")/../cli/common.sh"
pocl_only
mpirun_=(mpirun --oversubscribe --allow-run-as-root)

# The dam break, shortened: a/ runs to 0.01 s, b/ stops at 0.005 s with its checkpoint. No
# rebalancing: when a re-cut happens depends on timings, and bit for bit needs none.
python3 - "$CLPART_DATA_DIR/cases/dam_break_2d.json" "$work" <<'PY'
import json, sys
case = json.load(open(sys.argv[1]))
case["options"]["dist.rebalance"] = 0
for name, end in (("a", 0.01), ("b", 0.005), ("s", 0.015), ("l", 0.045), ("h", 0.035)):
    case.update(end_time=end, output_interval=0.0025)
    json.dump(case, open(f"{sys.argv[2]}/{name}.json", "w"))
PY

# clpart_on HOW ARGS...: clpart on one PoCL device ("one"), on N in one process ("threads N")
# or as N MPI ranks ("mpi N"), with a time limit so that a hang fails the test.
clpart_on() {
    local how=$1
    shift
    case $how in
    one) POCL_DEVICES=pthread timeout 120 "$clpart" "$@" ;;
    threads*) pocl_split "${how#threads }" timeout 120 "$clpart" "$@" ;;
    mpi*) POCL_DEVICES=pthread timeout 120 "${mpirun_[@]}" -np "${how#mpi }" "$clpart" "$@" ;;
    esac
}

# run NAME HOW CASE [ARGS...]: the case into $work/NAME; a failure is reported.
run() {
    local name=$1 how=$2 case=$3
    shift 3
    clpart_on "$how" run "$work/$case.json" --out "$work/$name" "$@" >"$work/$name.log" 2>&1
    local status=$?
    [ "$status" -eq 0 ] || fail "$name ($how $*) exited $status: $(tail -3 "$work/$name.log")"
}

# identical REFERENCE RUN: the same checkpoint files, byte for byte, and last diagnostics row.
identical() {
    local a=$work/$1 b=$work/$2 f
    [ "$(cd "$a" && ls checkpoint.ckpt*)" = "$(cd "$b" && ls checkpoint.ckpt*)" ] ||
        { fail "$2: checkpoint files $(cd "$b" && ls checkpoint.ckpt* | tr '\n' ' ')differ from $1's"; return; }
    for f in "$a"/checkpoint.ckpt*; do
        cmp -s "$f" "$b/$(basename "$f")" || fail "$2: $(basename "$f") differs from $1's"
    done
    [ "$(tail -n 1 "$a/diagnostics.csv")" = "$(tail -n 1 "$b/diagnostics.csv")" ] ||
        fail "$2: last diagnostics row differs from $1's"
    echo "$2: $(cd "$b" && ls checkpoint.ckpt* | wc -l) checkpoint files and last row identical to $1's"
}

# agree REFERENCE RUN: the final checkpoints, read here, hold the same particles, each once.
agree() {
    python3 - "$work/$1" "$work/$2" <<'PY'
import csv, os, re, struct, sys

def checkpoint(path):
    """A clpart checkpoint (src/io/checkpoint.c): step, scalars, arrays (bytes)."""
    data = open(path, "rb").read()
    assert data[:8] == b"CLPCKPT\0", path
    at = 24
    def num(fmt):
        nonlocal at
        v = struct.unpack_from("<" + fmt, data, at)[0]
        at += struct.calcsize(fmt)
        return v
    def string():
        nonlocal at
        n = num("I")
        at += n
        return data[at - n:at].decode()
    string(), string()
    step = num("Q")
    num("d"), num("d")
    scalars = {string(): num("d") for _ in range(num("I"))}
    arrays = {}
    for _ in range(num("I")):
        name, size, count = string(), num("I"), num("Q")
        arrays[name] = data[at:at + size * count]
        at += size * count
    return step, scalars, arrays

def particles(folder):
    """Step and {id: (type, x, |v|^2)} of the particles a run's last checkpoint owns."""
    manifest = folder + "/checkpoint.ckpt"
    step, scalars, arrays = checkpoint(manifest)
    if "pieces" in arrays:  # a split run's: each piece's owned slots
        digests = struct.unpack("<%dQ" % scalars["ranks"], arrays["pieces"])
        parts = []
        for k, d in enumerate(digests):
            name = "%s.%d.r%dof%d.%016x" % (manifest, step, k, scalars["ranks"], d)
            _, s, a = checkpoint(name)
            parts.append((a, int(s["owned_first"]), int(s["owned_end"])))
    else:
        parts = [(arrays, 0, len(arrays["id"]) // 4)]
    out = {}
    for a, first, end in parts:
        for k in range(first, end):
            i = struct.unpack_from("<I", a["id"], 4 * k)[0]
            t = struct.unpack_from("<I", a["type"], 4 * k)[0]
            x = struct.unpack_from("<4f", a["pos"], 16 * k)[0]
            v = struct.unpack_from("<4f", a["vel"], 16 * k)[:3]
            assert i not in out, f"{folder}: particle {i} owned twice"
            if t != 255:
                out[i] = (t, x, sum(c * c for c in v))
    return step, out

def last_row(folder):
    return list(csv.DictReader(open(folder + "/diagnostics.csv")))[-1]

(sa, a), (sb, b) = particles(sys.argv[1]), particles(sys.argv[2])
bad = []
if sa != sb:
    bad.append(f"step {sb} not {sa}")
if set(a) != set(b):
    bad.append(f"{len(set(a) ^ set(b))} particle IDs differ ({len(b)} against {len(a)})")
fluid_a = [p for p in a.values() if p[0] == 0]
fluid_b = [p for p in b.values() if p[0] == 0]
if len(fluid_a) != len(fluid_b):
    bad.append(f"{len(fluid_b)} fluid particles, not {len(fluid_a)}")
for what, x, y in (("summed squared speed", sum(p[2] for p in fluid_a), sum(p[2] for p in fluid_b)),
                   ("front", max(p[1] for p in fluid_a), max(p[1] for p in fluid_b))):
    if abs(x - y) > 1e-4 * max(abs(x), abs(y)):
        bad.append(f"{what} {y} not {x}")
ra, rb = last_row(sys.argv[1]), last_row(sys.argv[2])
for exact in ("mass", "excluded"):
    if float(ra[exact]) != float(rb[exact]):
        bad.append(f"{exact} {rb[exact]} not {ra[exact]}")
print(f"{os.path.basename(sys.argv[2])}: " + ("; ".join(bad) if bad else
      f"agrees: {len(b)} particles, summed squared speed "
      f"{sum(p[2] for p in fluid_b):.9g} against {sum(p[2] for p in fluid_a):.9g}"))
sys.exit(1 if bad else 0)
PY
    [ $? -eq 0 ] || fail "$2 differs from $1"
}

# refused NAME PATTERN HOW ARGS...: a restart that must fail with one error matching PATTERN.
refused() {
    local name=$1 pattern=$2 how=$3
    shift 3
    local out status
    out=$(clpart_on "$how" run "$work/a.json" --out "$work/$name" "$@" 2>&1)
    status=$?
    [ "$status" -ne 0 ] && [ "$status" -ne 124 ] ||
        { fail "$name: exited $status: $out"; return; }
    grep -qE -- "clpart: error: .*$pattern" <<<"$out" || fail "$name: output lacks /$pattern/: $out"
    echo "$name: refused: $(grep -m1 'clpart: error' <<<"$out" | cut -c1-150)"
}

# crossed RUN: whether particles moved between the slabs before RUN's checkpoint, so that the
# layout of its pieces is not the one the cut at the start made (its log, from --log run).
crossed() {
    awk '/rebuilds: [0-9]+ and [0-9]+ particles leave/ {
             for (i = 1; i < NF; i++) if ($i == "rebuilds:") n += $(i + 1) + $(i + 3)
         } END { exit !(n > 0) }' "$work/$1.log" ||
        fail "$1: no particle crossed between the slabs before its checkpoint: a restart tests nothing"
}

# The same decomposition: bit for bit, with the default options and with forced rebuilds, the
# predictor-corrector and mDBC (the halo's densities and ghost nodes restored). h/ stops at
# 0.035 s, after particles crossed between the slabs (from about 0.023 s), and is restarted to
# l/'s end: each device must list the neighbours of the slots its piece holds, not those of
# the cut at the start (which left the kinetic energy 2e-7 off at 0.045 s).
pc=(-s neighbors.skin=0.005 -s sph.integrator=predictor_corrector -s sph.boundary=mdbc)
for set in default pc; do
    opts=()
    [ "$set" = pc ] && opts=("${pc[@]}")
    run "l2-$set" "threads 2" l "${opts[@]}"
    run "h2-$set" "threads 2" h "${opts[@]}" --log run
    crossed "h2-$set"
    run "r2-$set" "threads 2" l --restart "$work/h2-$set/checkpoint.ckpt" "${opts[@]}"
    identical "l2-$set" "r2-$set"
done
run a2-default "threads 2" a
run b2-default "threads 2" b

# The rebalancing options change no cut a checkpoint holds: a restart that changes only them
# takes its pieces back and, checking no speed in its steps, ends as a2-default does.
run c2-probe "threads 2" a --restart "$work/b2-default/checkpoint.ckpt" -v \
    -s dist.rebalance=0.5 -s dist.probe_steps=1000000
! grep "are cut again" "$work/c2-probe.log" || fail "c2-probe: the particles were cut again"
[ "$(tail -n 1 "$work/a2-default/diagnostics.csv")" = "$(tail -n 1 "$work/c2-probe/diagnostics.csv")" ] ||
    fail "c2-probe: last diagnostics row differs from a2-default's"

# Another decomposition: the particles cut again.
run a1 one a
run b1 one b
run c1-from-2 one a --restart "$work/b2-default/checkpoint.ckpt"
agree a1 c1-from-2
run c3-from-2 "threads 3" a --restart "$work/b2-default/checkpoint.ckpt"
agree a1 c3-from-2
run c2-from-1 "threads 2" a --restart "$work/b1/checkpoint.ckpt"
agree a1 c2-from-1
run c2-weighted "threads 2" a --restart "$work/b2-default/checkpoint.ckpt" --weights 1,3
agree a1 c2-weighted

# Excluded particles carried over: fluid faster than 0.008 c0 is excluded, some of it before
# b's checkpoint; a restart that ends where the checkpoint is (case b) cut on 1, 3 and 2
# devices reports the checkpoint's row: the same step, mass and excluded count, and its last
# snapshot the same number of particles in the computation.
carried() {
    python3 - "$work/$1" "$work/$2" <<'PY'
import csv, re, struct, sys
def row(d):
    return list(csv.DictReader(open(d + "/diagnostics.csv")))[-1]
def live(d):
    """The last snapshot's particles in the computation (a split run leaves out the rest)."""
    last = re.findall(r'file="([^"]+)"', open(d + "/particles.pvd").read())[-1].split("/")[-1]
    head, raw = open(d + "/" + last, "rb").read().split(b'<AppendedData encoding="raw">', 1)
    raw = raw[raw.index(b"_") + 1:]
    at = int(re.search(rb'Name="type"[^>]*offset="(\d+)"', head).group(1))
    size = struct.unpack_from("<Q", raw, at)[0]
    return sum(t != 255 for t in struct.unpack_from("<%dI" % (size // 4), raw, at + 8))
a, b = row(sys.argv[1]), row(sys.argv[2])
bad = [f"{k} {b[k]} not {a[k]}" for k in ("step", "mass", "excluded") if float(a[k]) != float(b[k])]
if live(sys.argv[1]) != live(sys.argv[2]):
    bad.append(f"{live(sys.argv[2])} particles in the computation, not {live(sys.argv[1])}")
if float(a["excluded"]) == 0:
    bad.append("no particle was excluded before the checkpoint: nothing to carry")
print(f"{sys.argv[2].split('/')[-1]}: " + ("; ".join(bad) if bad else
      f"step {b['step']}, {live(sys.argv[2])} particles, {b['excluded']} excluded, as the checkpoint"))
sys.exit(1 if bad else 0)
PY
    [ $? -eq 0 ] || fail "$2 does not carry $1's excluded particles"
}
fast=(-s sph.speed_limit=0.008)
run b2-fast "threads 2" b "${fast[@]}"
run b1-fast one b "${fast[@]}"
run x1-from-2 one b --restart "$work/b2-fast/checkpoint.ckpt" "${fast[@]}"
carried b2-fast x1-from-2
run x3-from-2 "threads 3" b --restart "$work/b2-fast/checkpoint.ckpt" "${fast[@]}"
carried b2-fast x3-from-2
run x2-from-1 "threads 2" b --restart "$work/b1-fast/checkpoint.ckpt" "${fast[@]}"
carried b1-fast x2-from-1

# Refusals: one message naming the file, a non-zero exit, no hang.
broken() { # broken NAME: a copy of b2-default's checkpoint to break
    rm -rf "$work/$1"
    cp -r "$work/b2-default" "$work/$1"
}
broken missing
rm "$work"/missing/checkpoint.ckpt.*.r1of2.*
refused missing "piece 2 of 2, .*missing/checkpoint.ckpt[^ ]*, cannot be read" "threads 2" \
    --restart "$work/missing/checkpoint.ckpt"
refused missing-on-one "missing/checkpoint.ckpt[^ ]*, cannot be read" one \
    --restart "$work/missing/checkpoint.ckpt"
broken damaged
piece=$(ls "$work"/damaged/checkpoint.ckpt.*.r0of2.*)
printf 'x' | dd of="$piece" bs=1 seek=300 conv=notrunc status=none
refused damaged-piece "checkpoint $piece refused: corrupt" "threads 2" \
    --restart "$work/damaged/checkpoint.ckpt"
printf 'x' | dd of="$work/damaged/checkpoint.ckpt" bs=1 seek=100 conv=notrunc status=none
refused damaged-manifest "checkpoint $work/damaged/checkpoint.ckpt refused" "threads 2" \
    --restart "$work/damaged/checkpoint.ckpt"
refused other-options "checkpoint $work/b2-default/checkpoint.ckpt was written for a different run: .*sph.kernel" \
    "threads 2" --restart "$work/b2-default/checkpoint.ckpt" -s sph.kernel=cubic

if [ "$with_mpi" = mpi ]; then
    run l2-mpi "mpi 2" l
    run h2-mpi "mpi 2" h --log run
    crossed h2-mpi
    run r2-mpi "mpi 2" l --restart "$work/h2-mpi/checkpoint.ckpt"
    identical l2-mpi r2-mpi
    run b2-mpi "mpi 2" b
    run c3-mpi "mpi 3" a --restart "$work/b2-mpi/checkpoint.ckpt"
    agree a1 c3-mpi
    rm -rf "$work/missing-mpi"
    cp -r "$work/b2-mpi" "$work/missing-mpi"
    rm "$work"/missing-mpi/checkpoint.ckpt.*.r0of2.*
    refused missing-mpi "piece 1 of 2, .*, cannot be read" "mpi 2" \
        --restart "$work/missing-mpi/checkpoint.ckpt"

    # A rank killed mid-run: the job ends (no hang), and the last checkpoint, written every
    # 0.0025 s, is whole: two devices in one process take it up and run to the end.
    python3 - "$work/k.json" "$work/a.json" <<'PY'
import json, sys
case = json.load(open(sys.argv[2]))
case.update(end_time=0.02, checkpoint_interval=0.0025)
json.dump(case, open(sys.argv[1], "w"))
PY
    POCL_DEVICES=pthread timeout 120 "${mpirun_[@]}" -np 2 "$clpart" run "$work/k.json" \
        --out "$work/killed" >"$work/killed.log" 2>&1 &
    pid=$!
    until [ -e "$work/killed/checkpoint.ckpt" ] && [ "$(wc -l <"$work/killed/diagnostics.csv")" -ge 4 ]; do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    kill -KILL "$(pgrep -f "^$clpart run $work/k.json" | tail -n 1)"
    wait "$pid"
    status=$?
    [ "$status" -ne 0 ] && [ "$status" -ne 124 ] || fail "a rank killed: the job exited $status"
    step=$(ls "$work"/killed/checkpoint.ckpt.*.r0of2.* | sed 's/.*checkpoint\.ckpt\.\([0-9]*\)\.r0of2.*/\1/')
    run killed "threads 2" k --restart "$work/killed/checkpoint.ckpt"
    echo "a rank killed: the job ended ($status); its checkpoint of step $step restarted to the end"
fi

# SIGUSR1 then SIGTERM on a split run: a checkpoint, status 143, and a restart in the same
# folder that leaves every file (snapshots, diagnostics, manifest, only the last pieces) as
# the uninterrupted run's.
run s-whole "threads 2" s
# clpart itself in the background, not a function: the signals below go to its pid
two=$(POCL_DEVICES="pthread pthread" devices_of pocl)
POCL_DEVICES="pthread pthread" "$clpart" run "$work/s.json" --devices "$two" \
    --out "$work/s-stopped" >/dev/null 2>"$work/s-term.log" &
pid=$!
# rows ROWS: waits until the stopped run's diagnostics have ROWS lines, or it ended.
rows() {
    until [ "$(wc -l 2>/dev/null <"$work/s-stopped/diagnostics.csv" || echo 0)" -ge "$1" ]; do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
}
# SIGUSR1 first: a checkpoint while the run goes on.
rows 2
kill -USR1 "$pid"
until [ -e "$work/s-stopped/checkpoint.ckpt" ] || ! kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
kill -0 "$pid" 2>/dev/null && [ "$(ls "$work"/s-stopped/checkpoint.ckpt.*.r1of2.* | wc -l)" -eq 1 ] ||
    fail "SIGUSR1: no checkpoint of two pieces while the run went on"
rows 4
kill -TERM "$pid"
wait "$pid"
status=$?
[ "$status" -eq 143 ] || fail "SIGTERM: exit status $status, expected 143: $(tail -2 "$work/s-term.log")"
grep -q "stopped at step [0-9]*, .* checkpoint written to $work/s-stopped/checkpoint.ckpt" \
    "$work/s-term.log" || fail "SIGTERM: no message saying where: $(tail -2 "$work/s-term.log")"
# what a process killed while writing leaves, and a piece of an older checkpoint: all stale
for junk in checkpoint.ckpt.tmp-Ab12Cd checkpoint.ckpt.7.r1of2.0123456789abcdef \
    checkpoint.ckpt.7.r0of2.0123456789abcdef.tmp-xY34zW; do
    echo junk >"$work/s-stopped/$junk"
done
run s-stopped "threads 2" s --restart "$work/s-stopped/checkpoint.ckpt"
differing=$(same_outputs "$work/s-whole" "$work/s-stopped") ||
    fail "after SIGTERM and a restart, these differ: $differing"
[ "$(ls "$work/s-whole")" = "$(ls "$work/s-stopped")" ] || fail "after SIGTERM and a restart, other files"
echo "SIGTERM at $(sed -n 's/.*stopped at step \([0-9]*\),.*/step \1/p' "$work/s-term.log"), restarted: $(ls "$work/s-whole" | wc -l) files identical"

echo "$failures failures"
[ "$failures" -eq 0 ]
