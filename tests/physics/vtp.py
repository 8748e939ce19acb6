"""Reading the snapshots of a clpart run: its particles.pvd, and each .vtp file (VTK XML
PolyData with raw appended data and UInt64 block headers, as src/io writes them)."""
import os
import re
import struct

TYPES = {b"Float32": "f", b"Float64": "d", b"UInt32": "I", b"Int64": "q"}


def read_vtp(path):
    """The data arrays of a .vtp file by name, each flat (a 3-vector array holds x, y, z of
    the first point, then of the second, ...)."""
    data = open(path, "rb").read()
    head, raw = data.split(b'<AppendedData encoding="raw">', 1)
    raw = raw[raw.index(b"_") + 1:]
    arrays = {}
    for tag in re.finditer(rb"<DataArray([^>]*)>", head):
        attributes = dict(re.findall(rb'(\w+)="([^"]*)"', tag.group(1)))
        kind = TYPES.get(attributes.get(b"type"))
        if kind is None or b"offset" not in attributes:
            continue
        at = int(attributes[b"offset"])
        count = struct.unpack_from("<Q", raw, at)[0] // struct.calcsize(kind)
        arrays[attributes[b"Name"].decode()] = struct.unpack_from(f"<{count}{kind}", raw, at + 8)
    return arrays


def points(values, width=3):
    """A flat array as tuples of `width` components."""
    return [tuple(values[i:i + width]) for i in range(0, len(values), width)]


def snapshots(run):
    """(time, path) of each snapshot of the run folder `run`, from its particles.pvd."""
    index = open(os.path.join(run, "particles.pvd")).read()
    found = [(float(t), os.path.join(run, f))
             for t, f in re.findall(r'timestep="([^"]+)"[^>]*file="([^"]+)"', index)]
    assert found, f"{run}: particles.pvd lists no snapshot"
    return found
