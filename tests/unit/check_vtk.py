#!/usr/bin/env python3
"""Checks the XML structure of clpart's VTK output the way ParaView's readers need it.

Usage: check_vtk.py TEST_VTK_PROGRAM. Runs the program (tests/unit/test_vtk.c) with a fresh
folder, in which it leaves the .vtp and .pvd files it wrote, then parses each file's XML part
(everything before the raw appended data) with xml.etree and checks the required elements and
attributes, and that the byte counts of the appended blocks fit the declared sizes.
"""
import os
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

TYPE_SIZES = {"Int8": 1, "UInt8": 1, "Int16": 2, "UInt16": 2, "Int32": 4, "UInt32": 4,
              "Int64": 8, "UInt64": 8, "Float32": 4, "Float64": 8}
TAIL = b"\n  </AppendedData>\n</VTKFile>\n"


class Bad(Exception):
    pass


def require(cond, what):
    if not cond:
        raise Bad(what)


def integer(element, name):
    value = element.get(name)
    require(value is not None, f"<{element.tag}> has no {name}")
    require(value.isdigit(), f"<{element.tag}> {name}={value!r} is not a count")
    return int(value)


def check_array(array, tuples, raw, base):
    """Checks one appended <DataArray> and returns (offset, end of its block)."""
    name = array.get("Name")
    require(name, "a <DataArray> without Name")
    require(array.get("type") in TYPE_SIZES, f"array {name}: type {array.get('type')!r}")
    require(array.get("format") == "appended", f"array {name}: format {array.get('format')!r}")
    components = integer(array, "NumberOfComponents") if "NumberOfComponents" in array.attrib else 1
    offset = integer(array, "offset")
    require(base + offset + 8 <= len(raw), f"array {name}: offset {offset} past the end")
    (size,) = struct.unpack_from("<Q", raw, base + offset)
    expected = tuples * components * TYPE_SIZES[array.get("type")]
    require(size == expected, f"array {name}: {size} bytes, expected {expected}")
    return offset, offset + 8 + size


def check_vtp(path):
    raw = open(path, "rb").read()
    start = raw.find(b'<AppendedData encoding="raw">')
    require(start >= 0, "no <AppendedData encoding=\"raw\">")
    underscore = raw.find(b"_", start)
    require(raw[start + len(b'<AppendedData encoding="raw">'):underscore].strip() == b"",
            "text between <AppendedData> and '_'")
    root = ET.fromstring(raw[:underscore] + b"</AppendedData></VTKFile>")
    base = underscore + 1

    require(root.tag == "VTKFile", f"root is <{root.tag}>")
    for key, value in (("type", "PolyData"), ("byte_order", "LittleEndian"),
                       ("header_type", "UInt64")):
        require(root.get(key) == value, f"VTKFile {key}={root.get(key)!r}, expected {value}")
    require(root.get("version") in ("0.1", "1.0"), f"VTKFile version={root.get('version')!r}")
    require(root.find("AppendedData").get("encoding") == "raw", "AppendedData encoding")
    polydata = root.find("PolyData")
    require(polydata is not None, "no <PolyData>")
    pieces = polydata.findall("Piece")
    require(len(pieces) == 1, f"{len(pieces)} pieces")
    piece = pieces[0]
    n = integer(piece, "NumberOfPoints")
    verts = integer(piece, "NumberOfVerts")
    for key in ("NumberOfLines", "NumberOfStrips", "NumberOfPolys"):
        require(integer(piece, key) == 0, f"{key} is not 0")
    require(verts == n, f"{verts} verts for {n} points")

    blocks = []
    field = polydata.find("FieldData")
    time = field.find("DataArray[@Name='TimeValue']") if field is not None else None
    require(time is not None, "no TimeValue field array")
    require(time.get("type") == "Float64", "TimeValue is not Float64")
    for array in field.findall("DataArray"):
        blocks.append(check_array(array, integer(array, "NumberOfTuples"), raw, base))
    point_data = piece.find("PointData")
    require(point_data is not None, "no <PointData>")
    names = [a.get("Name") for a in point_data.findall("DataArray")]
    for role in ("Scalars", "Vectors"):
        if role in point_data.attrib:
            require(point_data.get(role) in names, f"PointData {role} names no array")
    for array in point_data.findall("DataArray"):
        blocks.append(check_array(array, n, raw, base))
        if array.get("Name") == "id":  # particle IDs: one UInt32 each, no two alike
            require(array.get("type") == "UInt32" and array.get("NumberOfComponents") == "1",
                    "id is not one UInt32 a point")
            ids = struct.unpack_from(f"<{n}I", raw, base + blocks[-1][0] + 8)
            require(len(set(ids)) == n, "two points have the same id")
    points = piece.findall("Points/DataArray")
    require(len(points) == 1, f"{len(points)} arrays in <Points>")
    require(points[0].get("NumberOfComponents") == "3", "Points without 3 components")
    require(points[0].get("type") == "Float64", "Points are not Float64")
    blocks.append(check_array(points[0], n, raw, base))
    cells = {a.get("Name"): a for a in piece.findall("Verts/DataArray")}
    require(set(cells) == {"connectivity", "offsets"}, f"Verts arrays {sorted(cells)}")
    for name, first in (("connectivity", 0), ("offsets", 1)):
        require(cells[name].get("type") == "Int64", f"{name} is not Int64")
        blocks.append(check_array(cells[name], verts, raw, base))
        values = struct.unpack_from(f"<{verts}q", raw, base + blocks[-1][0] + 8)
        require(list(values) == list(range(first, verts + first)),
                f"{name} are not {first}..{verts + first - 1}")

    end = 0
    for offset, block_end in sorted(blocks):
        require(offset == end, f"a gap or overlap at appended byte {end}")
        end = block_end
    require(raw[base + end:] == TAIL, "the file does not end right after the last block")
    return len(blocks)


def check_pvd(path):
    root = ET.parse(path).getroot()
    require(root.tag == "VTKFile" and root.get("type") == "Collection", "not a Collection")
    sets = root.findall("Collection/DataSet")
    require(sets, "no DataSet")
    for entry in sets:
        require(entry.get("file"), "a DataSet without file")
        float(entry.get("timestep"))
    return len(sets)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check_vtk.py TEST_VTK_PROGRAM")
    with tempfile.TemporaryDirectory(prefix="clpart-check-vtk-") as folder:
        subprocess.run([sys.argv[1], folder], check=True, stdout=subprocess.DEVNULL)
        files = sorted(os.listdir(folder))
        require(any(f.endswith(".vtp") for f in files), "the program wrote no .vtp")
        require(any(f.endswith(".pvd") for f in files), "the program wrote no .pvd")
        for name in files:
            path = os.path.join(folder, name)
            try:
                if name.endswith(".vtp"):
                    count = check_vtp(path)
                    print(f"{name}: {count} arrays ok")
                elif name.endswith(".pvd"):
                    count = check_pvd(path)
                    print(f"{name}: {count} datasets ok")
            except (Bad, ET.ParseError, ValueError, struct.error) as e:
                sys.exit(f"check_vtk: {name}: {e}")
    print("check_vtk: all files ok")


if __name__ == "__main__":
    main()
