#!/usr/bin/env python3
"""The indices of the devices of the named OpenCL implementations, comma-separated, from
'clpart devices --json' on standard input: a test names the devices it needs ('pocl',
'oclgrind', 'rusticl', 'intel'), never 'all', which on a machine with a GPU or rusticl holds
more. With --selected: the implementation of the device clpart selects by default (under
CLPART_DEVICE), one of those names or 'other'.

usage: clpart devices --json | devices_of.py IMPLEMENTATION...
       clpart devices --json | devices_of.py --selected"""
import json
import sys

PLATFORMS = {"pocl": "Portable Computing Language", "oclgrind": "Oclgrind", "rusticl": "rusticl",
             "intel": "Intel(R) OpenCL"}  # Intel's CPU runtime, not its GPU driver's platforms


def selected_implementation(listing):
    """The implementation name of the selected device of a 'clpart devices --json' listing."""
    chosen = [d for d in listing["devices"] if d["index"] == listing.get("selected")]
    names = [name for name, platform in PLATFORMS.items()
             if chosen and chosen[0]["platform"] == platform]
    return names[0] if names else "other"


if __name__ == "__main__":
    listing = json.load(sys.stdin)
    if sys.argv[1:] == ["--selected"]:
        print(selected_implementation(listing))
    else:
        wanted = [PLATFORMS[name] for name in sys.argv[1:]]
        print(",".join(str(d["index"]) for d in listing["devices"] if d["platform"] in wanted))
