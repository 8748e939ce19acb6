#!/usr/bin/env python3
"""For the docs test: prints a case file with some of its keys changed, so that a long
documented run can be run shortened.

usage: shorten.py CASE KEY=VALUE...   KEY a dotted path (steps, pso.iterations, end_time),
                                      VALUE as JSON (50, 0.005, "auto")"""
import json
import sys

if len(sys.argv) < 3 or any("=" not in a for a in sys.argv[2:]):
    sys.exit(__doc__)
case = json.load(open(sys.argv[1]))
for assignment in sys.argv[2:]:
    key, _, value = assignment.partition("=")
    *path, last = key.split(".")
    node = case
    for part in path:
        node = node[part]
    if last not in node:
        sys.exit(f"shorten.py: {sys.argv[1]} has no key {key}")
    node[last] = json.loads(value)
json.dump(case, sys.stdout, indent=2)
print()
