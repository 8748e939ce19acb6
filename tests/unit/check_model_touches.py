#!/usr/bin/env python3
"""unit/model-touches: a model is added by its own files and two shared lines.

Lists every line of the checkout's files (those git tracks, and new ones it does not ignore)
that names the model, outside the documentation (docs/ and every *.md), the tests (tests/)
and the model's own files: src/models/M/, cl/M/, options/M.json, cases/M.json and
cases/M_*.json, tolerances/M.json. It fails unless those lines are exactly the two that
docs/adding-a-model.md says a model adds: its X(M) line in the list of src/models/registry.c
and its source line in meson.build.

A name is matched case-blind anywhere, inside identifiers too (clp__M_entry, CLP_BUF_M_POS,
CLP_M_DT). The word "harmonic" also names Pennycook's
harmonic mean (src/bench/phi.c): an occurrence followed by the word "mean", across a line
break, a comment's leading "*" or a string's quotes, is that, not the model.

usage: check_model_touches.py SOURCE_ROOT [MODEL]   (MODEL: harmonic)
Exits 77 (skipped) outside a git checkout.
"""
import re
import subprocess
import sys
from pathlib import Path


def own(path, model):
    return (path.startswith(("docs/", "tests/", f"src/models/{model}/", f"cl/{model}/"))
            or path.endswith(".md")
            or path in (f"options/{model}.json", f"cases/{model}.json", f"tolerances/{model}.json")
            or re.fullmatch(rf"cases/{re.escape(model)}_[^/]*\.json", path) is not None)


def naming_lines(text, model):
    """The line numbers (from 1) where `model` is named, the harmonic mean left out."""
    found = set()
    for m in re.finditer(re.escape(model), text, re.IGNORECASE):
        if re.match(r'(?:\s|\*|//|#|")*mean\b', text[m.end():], re.IGNORECASE):
            continue
        found.add(text.count("\n", 0, m.start()) + 1)
    return sorted(found)


def main():
    root = Path(sys.argv[1])
    model = sys.argv[2] if len(sys.argv) > 2 else "harmonic"
    listed = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], capture_output=True)
    if listed.returncode != 0:
        print(f"skip: {root} is not a git checkout")
        return 77
    touches = []
    for path in sorted(set(listed.stdout.decode().split("\0")) - {""}):
        file = root / path
        if own(path, model) or not file.is_file():
            continue
        data = file.read_bytes()
        if b"\0" in data:
            continue  # binary
        lines = data.decode("utf-8", "replace").split("\n")
        touches += [(path, n, lines[n - 1].strip()) for n in naming_lines("\n".join(lines), model)]
    expected = {
        "src/models/registry.c": re.compile(rf"X\({re.escape(model)}\)\s*\\"),
        "meson.build": re.compile(rf"'src/models/{re.escape(model)}/[\w.-]+\.c',"),
    }
    for path, n, line in touches:
        print(f"{path}:{n}: {line}")
    bad = [t for t in touches if t[0] not in expected or not expected[t[0]].fullmatch(t[2])]
    missing = [p for p in expected if not any(t[0] == p and t not in bad for t in touches)]
    if bad or missing or len(touches) > 2:
        for path, n, line in bad:
            print(f"not a shared line a model may add: {path}:{n}: {line}")
        for path in missing:
            print(f"no line of {path} names model {model}: is it registered and built?")
        print(f"FAIL: model {model} is named by {len(touches)} lines outside its own files; "
              "adding a model may add 2 (docs/adding-a-model.md)")
        return 1
    print(f"ok: model {model} is named outside its own files by the 2 shared lines only")
    return 0


if __name__ == "__main__":
    sys.exit(main())
