#!/usr/bin/env python3
"""Prints docs/cli-reference.md: every command's --help, as the binary given prints it.

    scripts/cli-reference.py BIN > docs/cli-reference.md      (make cli-reference)
    scripts/cli-reference.py BIN --check docs/cli-reference.md

The commands come from the binary's own description of itself (argument-parser's --experimental-dump-help), so
a new command is in the reference as soon as it is built. --check exits 1, saying why, when the file differs from
what would be generated, or when a command, argument or option has no help text (it would be undocumented).
Help is printed 100 columns wide with COLUMNS, so the file is the same whatever terminal runs this.
"""
import json
import os
import subprocess
import sys

HEADER = """# CLI reference

Every command's `--help`, generated from the binary by `make cli-reference` (`scripts/cli-reference.py`); do not
edit by hand: a test fails when this page differs from what the built binary prints. The guide to the commands
and the exit statuses is [commands.md](commands.md).
"""


def run(binary, args):
    env = {"PATH": "/usr/bin:/bin", "COLUMNS": "100", "LANG": "C.UTF-8", "TZ": "UTC"}
    result = subprocess.run([binary] + args, capture_output=True, env=env, text=True)
    if result.returncode != 0:
        sys.exit(f"cli-reference: {' '.join(['bookkeeper'] + args)} exited {result.returncode}: {result.stderr}")
    return result.stdout


def commands(command, path):
    """(path, command) for the command and each subcommand below it, depth first; argument-parser's own
    `help` command is left out."""
    yield path, command
    for sub in command.get("subcommands", []):
        if sub["commandName"] != "help":
            yield from commands(sub, path + [sub["commandName"]])


def undocumented(tree):
    problems = []
    for path, command in commands(tree, ["bookkeeper"]):
        name = " ".join(path)
        if not command.get("abstract"):
            problems.append(f"{name}: no abstract")
        for argument in command.get("arguments", []):
            if not argument.get("abstract") and argument.get("shouldDisplay", True):
                label = argument.get("preferredName", {}).get("name") or argument.get("valueName")
                problems.append(f"{name}: {label} has no help text")
    return problems


def generate(binary):
    tree = json.loads(run(binary, ["--experimental-dump-help"]))["command"]
    parts = [HEADER]
    for path, _ in commands(tree, ["bookkeeper"]):
        text = run(binary, path[1:] + ["--help"]).rstrip("\n")
        parts.append(f"## {' '.join(path)}\n\n```text\n{text}\n```\n")
    return "\n".join(parts), tree


def main():
    if len(sys.argv) not in (2, 4) or (len(sys.argv) == 4 and sys.argv[2] != "--check"):
        sys.exit(__doc__)
    text, tree = generate(sys.argv[1])
    if len(sys.argv) == 2:
        sys.stdout.write(text)
        return
    problems = undocumented(tree)
    path = sys.argv[3]
    current = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
    if current != text:
        problems.append(f"{path} is out of date: run `make cli-reference`")
    for problem in problems:
        print(f"cli-reference: {problem}", file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
