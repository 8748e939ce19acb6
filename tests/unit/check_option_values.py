#!/usr/bin/env python3
"""Each option is named, and each enum option's values written, once, in options/*.json: the
library reads, compares, sets and lists them through what tools/gen-option-enums makes of
those files (clp__neighbors_mode_of(opts) == CLP_NEIGHBORS_MODE_LIST,
clp__neighbors_every_set(opts, 8, err), CLP_NEIGHBORS_MODE_LIST_NAME). This fails on
- a C string literal in src/ that spells an enum value ("list") or an assignment of one
  ("neighbors.mode=list"), but for the few literals below, which only share a value's
  spelling;
- a read or write of an option by its name as a string (clp_options_int(opts, "..."),
  clp_options_apply_assignment) outside src/options and the public API's declarations, but
  for the tables below, whose rows name options as data;
- a message that tells the user to set an option (`-s NAME=...`) that no options/*.json
  defines, as a rename of code once made of sph.fit_device.

usage: check_option_values.py REPOSITORY
"""
import json
import pathlib
import re
import sys

# (file, literal): why the literal is not an option's value.
NOT_VALUES = {
    ("src/models/pso/pso_run.c", "particle"): "summary.json's key and a diagnostic's name",
    ("src/models/repulsive/repulsive_case.c", "auto"): "the case's \"dt\": \"auto\"",
    ("src/models/search/search_case.c", "move"): "the search case's key \"move\"",
    ("src/models/sph/sph_case.c", "xyz"): "the letters of a case's coordinates",
    ("src/models/sph/sph_gauge_place.c", "xyz"): "the letters of a face's axis",
}
# Files whose tables name options as data, matched by name at run time.
BY_NAME = {"src/worker/buffer.c": "the buffer traits' and stages' conditions (needs_option)"}
BY_NAME_CALL = re.compile(r"\bclp_options_(?:bool|int|float|enum|apply_assignment)\(")
LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
COMMENT = re.compile(r"/\*.*?\*/", re.S)


SET_IN_MESSAGE = re.compile(r"-s ([a-z_]+\.[a-z_0-9]+)=")


def schema_options(root):
    for path in sorted((root / "options").glob("*.json")):
        yield from json.loads(path.read_text(encoding="utf-8"))["options"]


def enum_values(root):
    return {o["name"]: set(o["values"]) for o in schema_options(root) if o["type"] == "enum"}


def spelled(text, values):
    """The option whose value the literal spells, alone or in an assignment; None if none."""
    assignment = re.fullmatch(r"([a-z_]+\.[a-z_0-9]+)=([a-z_0-9]+)", text)
    if assignment and assignment.group(2) in values.get(assignment.group(1), ()):
        return assignment.group(1)
    return next((name for name, allowed in values.items() if text in allowed), None)


def main():
    root = pathlib.Path(sys.argv[1])
    values = enum_values(root)
    names = {option["name"] for option in schema_options(root)}
    found = []
    for path in sorted((root / "src").rglob("*.[ch]")):
        relative = path.relative_to(root).as_posix()
        code = COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), path.read_text("utf-8"))
        for number, line in enumerate(code.splitlines(), 1):
            if BY_NAME_CALL.search(line) and "CLP_API" not in line \
                    and not relative.startswith("src/options/") and relative not in BY_NAME:
                found.append(f"{relative}:{number}: an option read or written by its name: "
                             f"{line.strip()}")
            for literal in LITERAL.findall(line):
                option = spelled(literal, values)
                if option and (relative, literal) not in NOT_VALUES:
                    found.append(f'{relative}:{number}: "{literal}" spells a value of {option}')
                for named in SET_IN_MESSAGE.findall(literal):
                    if named not in names:
                        found.append(f'{relative}:{number}: "-s {named}=" names no option')
    if found:
        print("options named or values written again outside options/ (use the generated "
              "accessors):")
        print("\n".join(found))
        return 1
    print(f"{sum(len(v) for v in values.values())} values of {len(values)} enum options, "
          "each written once; no option read or written by its name outside src/options; "
          "every option a message names exists")
    return 0


if __name__ == "__main__":
    sys.exit(main())
