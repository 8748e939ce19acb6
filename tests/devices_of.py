#!/usr/bin/env python3
"""The indices of the devices of the named OpenCL implementations, comma-separated, from
'clpart devices --json' on standard input: a test names the devices it needs ('pocl',
'oclgrind', 'rusticl', 'intel'), never 'all', which on a machine with a GPU or rusticl holds
more.

usage: clpart devices --json | devices_of.py IMPLEMENTATION..."""
import json
import sys

PLATFORMS = {"pocl": "Portable Computing Language", "oclgrind": "Oclgrind", "rusticl": "rusticl",
             "intel": "Intel(R) OpenCL"}  # Intel's CPU runtime, not its GPU driver's platforms

wanted = [PLATFORMS[name] for name in sys.argv[1:]]
devices = json.load(sys.stdin)["devices"]
print(",".join(str(d["index"]) for d in devices if d["platform"] in wanted))
