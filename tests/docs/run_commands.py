#!/usr/bin/env python3
"""Runs every command that README.md and docs/**/*.md show, and checks their relative links.

Commands come from fenced blocks:
  ```sh       every non-empty line not starting with '#' is a command (a line ending in '\\'
              continues on the next); it must exit 0.
  ```console  every line starting with '$ ' is a command; the lines after it, up to the next
              '$ ' or the end of the block, are its output. Each shown line must be a line of
              the actual output (stdout and stderr), where text in single quotes right after
              the word 'device' may differ (device names vary). A command whose shown output
              has a line starting with 'clpart: error:' must exit non-zero, any other 0.
Other blocks (text, json, c, plain) are not run.

Each command runs with bash in a scratch folder holding links to the repository's cases/,
data/, tools/, bench/, cl/ and options/, 'build' -> the meson build folder, and a copy of
docs/ (so no command can write into the checkout's docs). The build's tools/ folder is first
on PATH, CLPART_CACHE_DIR is in the scratch folder (the cache is on for the commands that
show it, see cache_env), and out/ lands there.

Commands that cannot run as written are listed in commands.txt beside this script, one per
line: the documented command, a tab, and the command run instead, with a '#' comment line
above each entry saying why. The test fails when an entry's command is no longer documented.
A command that needs what this machine lacks (gnuplot, mpirun, Oclgrind, rusticl, PyPI:
NEEDS) is skipped, and the skipped ones are listed at the end (in CI, which has them all, it
fails). A command with '--device gpu' runs with '--device cpu' when 'clpart devices --json' lists no GPU. A
command that already ran and passed (the same text) is not run again: its output is checked
against that run's. Mapped commands see DOCUMENTED_COMMAND (the command as documented),
DOCS_TEST_DIR (this folder) and CLPART_SOURCE_ROOT (the checkout) in their environment.

usage: run_commands.py CLPART [--keep] [--only FILE.md]...
  CLPART  the built clpart (BUILD/tools/clpart); the build folder is two levels up
  --keep  leave the scratch folder in place and print its path
  --only  run only the commands of these documents (links and commands.txt are still checked)
"""
import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE.parent))
from devices_of import selected_implementation  # noqa: E402 (the tests' folder, added above)
LINKED = ["cases", "data", "tools", "bench", "cl", "options"]
COMMAND_TIMEOUT = 600


def reaches_pypi():
    try:
        socket.create_connection(("pypi.org", 443), timeout=5).close()
        return True
    except OSError:
        return False


def icd_installed(name):
    vendors = Path(os.environ.get("OCL_ICD_VENDORS", "/etc/OpenCL/vendors"))
    return (vendors / name).is_file()


# What some documented commands need beyond clpart, each with the commands that need it and
# whether this machine has it: where it does not, those commands are skipped and listed.
NEEDS = {
    "gnuplot": (r"tools/plot-|bench/\w+_report\.py \S+\.png", lambda: shutil.which("gnuplot")),
    "mpirun": (r"\bmpirun\b", lambda: shutil.which("mpirun")),
    "Oclgrind": (r"oclgrind", lambda: shutil.which("oclgrind")),
    "rusticl": (r"rusticl", lambda: icd_installed("rusticl.icd")),
    "pip and PyPI": (r"tools/install-intel-opencl|\.opencl/intel/env\.sh",
                     lambda: shutil.which("pip3") and reaches_pypi()),
}


# The default devices on which the commands would outlast the test's 15 minutes, and why.
TOO_SLOW = {
    "intel": "on Intel's CPU runtime a build takes 7.3 s against PoCL's 1.1 s (2 cores), and "
             "the commands ran past the test's 900 s",
    "rusticl": "rusticl steps the 2D dam break 11 times slower than PoCL "
               "(docs/benchmarks/implementations.md), and the commands take minutes on PoCL",
}


def too_slow(clpart):
    """Why the commands are not run on the default device, or None."""
    listed = subprocess.run([str(clpart), "devices", "--json"], capture_output=True, text=True)
    try:
        implementation = selected_implementation(json.loads(listed.stdout))
    except (ValueError, KeyError):
        return None  # a listing that fails fails the commands themselves, which say why
    return TOO_SLOW.get(implementation)


class Command:
    def __init__(self, doc, line, text, kind, shown=None):
        self.doc, self.line, self.text, self.kind = doc, line, text, kind
        self.shown = shown or []  # the output lines a console block shows

    @property
    def where(self):
        return f"{self.doc.relative_to(ROOT)}:{self.line}"

    def must_fail(self):
        return any(line.startswith("clpart: error:") for line in self.shown)


FENCE = re.compile(r"^\s*```\s*([A-Za-z0-9_+-]*)")


def blocks(path):
    """(kind, [(line number, text)]) for each fenced block of a Markdown file."""
    found, kind, body, indent = [], None, [], 0
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if kind is None:
            m = FENCE.match(line)
            if m:
                kind, body = m.group(1) or "plain", []
                indent = len(line) - len(line.lstrip())
        elif line.strip() == "```":
            found.append((kind, body))
            kind = None
        else:
            body.append((number, line[indent:] if line[:indent].isspace() else line))
    if kind is not None:
        raise SystemExit(f"{path.relative_to(ROOT)}: a ``` block is not closed")
    return found


def commands(path):
    result = []
    for kind, body in blocks(path):
        if kind == "sh":
            pending, start = "", 0
            for number, line in body:
                text = line.strip()
                if not pending and (not text or text.startswith("#")):
                    continue
                if not pending:
                    start = number
                if text.endswith("\\"):
                    pending += text[:-1].rstrip() + " "
                    continue
                result.append(Command(path, start, pending + text, "sh"))
                pending = ""
            if pending:
                raise SystemExit(f"{path.relative_to(ROOT)}:{start}: a command ends in '\\'")
        elif kind == "console":
            current = None
            for number, line in body:
                if line.startswith("$ "):
                    current = Command(path, number, line[2:].strip(), "console")
                    result.append(current)
                elif current is not None:
                    current.shown.append(line)
                elif line.strip():
                    raise SystemExit(f"{path.relative_to(ROOT)}:{number}: console output "
                                     "before any '$ ' command")
    return result


def read_mapping(path):
    """{documented command: (replacement, line)}; errors for entries without a comment."""
    mapping, errors, commented = {}, [], False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            commented = False
            continue
        if line.startswith("#"):
            commented = True
            continue
        documented, tab, replacement = line.partition("\t")
        if not tab or not documented.strip() or not replacement.strip():
            errors.append(f"commands.txt:{number}: not 'documented<TAB>replacement': {line}")
        elif not commented:
            errors.append(f"commands.txt:{number}: no '#' comment above saying why: {line}")
        elif documented.strip() in mapping:
            errors.append(f"commands.txt:{number}: listed twice: {documented}")
        else:
            mapping[documented.strip()] = (replacement.strip(), number)
        commented = False
    return mapping, errors


# ---- Links

LINK = re.compile(r"!?\[[^\]]*\]\(\s*([^)\s]+)(?:\s+\"[^\"]*\")?\s*\)")


def slug(heading):
    """The anchor GitHub gives a heading."""
    text = re.sub(r"`([^`]*)`", r"\1", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def outside_code(path):
    """(line number, line) of the lines outside fenced blocks."""
    inside = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line) and (not inside or line.strip() == "```"):
            inside = not inside
        elif not inside:
            yield number, line


def anchors(path):
    found = set()
    for _, line in outside_code(path):
        if re.match(r"#{1,6} ", line):
            base = slug(line.lstrip("#"))
            name, n = base, 1
            while name in found:
                name, n = f"{base}-{n}", n + 1
            found.add(name)
    return found


def check_links(docs):
    broken, count = [], 0
    for doc in docs:
        for number, line in outside_code(doc):
            for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
                if re.match(r"^[a-z]+:", target):  # http:, https:, mailto:
                    continue
                count += 1
                file, _, anchor = target.partition("#")
                dest = (doc.parent / file).resolve() if file else doc
                where = f"{doc.relative_to(ROOT)}:{number}"
                if not dest.exists():
                    broken.append(f"{where}: link to a missing file: {target}")
                elif ROOT not in dest.parents and dest != ROOT:
                    broken.append(f"{where}: link out of the repository: {target}")
                elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                    broken.append(f"{where}: no heading for the anchor: {target}")
    return count, broken


# ---- Running


def output_matches(shown, actual_lines):
    """Whether a shown line is a line of the output; a device name in quotes may differ."""
    parts = re.split(r"(device '[^']*')", shown.rstrip())
    pattern = "".join("device '[^']*'" if re.fullmatch(r"device '[^']*'", p) else re.escape(p)
                      for p in parts)
    return any(re.fullmatch(pattern, line) for line in actual_lines)


def cache_env(c):
    """The binary cache is on for the commands that show it (those of docs/cache.md, those
    naming it, and bench/sweep.sh, which times hits), off for the others: on PoCL, making a
    binary to store takes about four times the build itself, and nothing else a command shows
    depends on it (cli/errors-and-cache and cli/sweep test the cache)."""
    shows_cache = c.doc.name == "cache.md" or re.search(r"cache|bench/sweep", c.text)
    return {} if shows_cache else {"CLPART_NO_CACHE": "1"}


def has_gpu(clpart, env):
    try:
        out = subprocess.run([str(clpart), "devices", "--json"], env=env, capture_output=True,
                             text=True, timeout=120).stdout
        return any(d.get("type") == "GPU" for d in json.loads(out)["devices"])
    except (subprocess.SubprocessError, ValueError, KeyError):
        return False


def scratch_folder(build):
    scratch = Path(tempfile.mkdtemp(prefix="clpart-docs-"))
    for name in LINKED:
        (scratch / name).symlink_to(ROOT / name)
    (scratch / "build").symlink_to(build)
    shutil.copytree(ROOT / "docs", scratch / "docs")
    return scratch


def main(argv):
    parser = argparse.ArgumentParser(description="Runs every documented command.")
    parser.add_argument("clpart", help="the built clpart, BUILD/tools/clpart")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    parser.add_argument("--only", action="append", default=[], metavar="FILE.md",
                        help="run only the commands of these documents")
    opts = parser.parse_args(argv)
    clpart = Path(opts.clpart).resolve()
    build = clpart.parent.parent
    if not clpart.is_file():
        print(f"no clpart at {clpart}", file=sys.stderr)
        return 2

    docs = [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))
    failures = []

    mapping, errors = read_mapping(HERE / "commands.txt")
    failures += errors
    found = []
    for doc in docs:
        found += commands(doc)
    documented = {c.text for c in found}
    for text, (_, number) in mapping.items():
        if text not in documented:
            failures.append(f"commands.txt:{number}: no longer documented: {text}")
    if opts.only:
        chosen = {(ROOT / o).resolve() for o in opts.only} | {Path(o).resolve() for o in opts.only}
        found = [c for c in found if c.doc in chosen]

    links, broken = check_links(docs)
    failures += broken

    slow = too_slow(clpart)
    if slow:
        print(f"the documented commands are not run: {slow}")
        for f in failures:
            print(f"  {f}")
        return 1 if failures else 77

    scratch = scratch_folder(build)
    env = dict(os.environ)
    env.pop("CLPART_NO_CACHE", None)
    env.update(PATH=f"{build / 'tools'}{os.pathsep}{env.get('PATH', '')}",
               CLPART_CACHE_DIR=str(scratch / "cache"), CLPART_DATA_DIR=str(ROOT),
               CLPART_SOURCE_ROOT=str(ROOT), DOCS_TEST_DIR=str(HERE), CLPART_LOG="")
    gpu = has_gpu(clpart, env)
    print(f"scratch folder {scratch}; {'a GPU' if gpu else 'no GPU'} among the devices; "
          f"{len(found)} commands in {len(docs)} documents")

    missing = [need for need, (_, available) in NEEDS.items() if not available()]
    start, ran, mapped, results, skipped = time.monotonic(), 0, 0, {}, []
    for c in found:
        print(f"\n--- {c.where}: {c.text}")
        run = mapping.get(c.text, (c.text,))[0]
        lacking = [need for need in missing if re.search(NEEDS[need][0], run)]
        if lacking:
            print(f"    skipped: this machine lacks {', '.join(lacking)}")
            skipped.append(f"{c.where} ({', '.join(lacking)})")
            continue
        if c.text in results:  # ran before and passed: check this one's output against that run
            code, lines, seconds, first = results[c.text]
            print(f"    note: the same command ran and passed at {first}; its output is reused")
        else:
            run = c.text
            if c.text in mapping:
                run = mapping[c.text][0]
                mapped += 1
                print(f"    note: runs as listed in commands.txt: {run}")
            if re.search(r"--device[ =]gpu\b", run) and not gpu:
                run = re.sub(r"--device([ =])gpu\b", r"--device\1cpu", run)
                print("    note: no GPU: runs with --device cpu")
            sys.stdout.flush()
            t0 = time.monotonic()
            try:
                proc = subprocess.run(["bash", "-c", run], cwd=scratch, env=dict(
                    env, DOCUMENTED_COMMAND=c.text, **cache_env(c)), stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=COMMAND_TIMEOUT)
                output, code = proc.stdout.decode("utf-8", "replace"), proc.returncode
            except subprocess.TimeoutExpired as e:
                output = (e.stdout or b"").decode("utf-8", "replace")
                code = f"timeout after {COMMAND_TIMEOUT} s"
            ran += 1
            seconds = time.monotonic() - t0
            lines = [l.rstrip() for l in re.split(r"\r\n|\r|\n", output)]
        problems = []
        if c.must_fail():
            if code == 0:
                problems.append("exited 0, but its shown output is an error")
        elif code != 0:
            problems.append(f"exit status {code}")
        for shown in c.shown:
            if shown.strip() and not output_matches(shown, lines):
                problems.append(f"shown output not in the actual output: {shown}")
        if problems:
            tail = "\n".join(lines[-40:])
            print(f"FAIL ({seconds:.1f} s, exit {code})\n" + "\n".join(
                f"    {p}" for p in problems) + f"\n    output (last 40 lines):\n{tail}")
            failures += [f"{c.where}: {c.text}: {p}" for p in problems]
        else:
            last = [l for l in lines if l.strip()][-2:]
            print(f"ok   ({seconds:.1f} s, exit {code})" + "".join(f"\n   | {l[:160]}" for l in last))
            results.setdefault(c.text, (code, lines, seconds, c.where))

    total = time.monotonic() - start
    print(f"\n=== {ran} commands run ({mapped} as listed in commands.txt) in {total:.0f} s; "
          f"{links} relative links checked")
    if skipped:
        print(f"{len(skipped)} commands skipped for what this machine lacks: " + ", ".join(skipped))
        if os.environ.get("CI") == "true":
            failures.append(f"CI provides {', '.join(missing)}, yet this machine lacks it")
    if opts.keep:
        print(f"scratch folder kept: {scratch}")
    else:
        shutil.rmtree(scratch, ignore_errors=True)
    if failures:
        print(f"{len(failures)} failures:")
        for f in failures:
            print(f"  {f}")
        return 1
    print("all documented commands ran as shown, and every link's target exists")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
