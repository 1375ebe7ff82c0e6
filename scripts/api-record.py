#!/usr/bin/env python3
"""ObjectStore's public API as a sorted, readable digest (docs/api/ObjectStore.api).

The digest is made from the symbol graph that `swift symbolgraph-extract` reads out of the module the debug build
leaves in .build/debug/Modules (`swift build --build-tests`): one line per public symbol (kind, full name, the
declaration as DocC shows it), one line per conformance of a public type (`conforms ObjectStore.Value: Sendable`), and
one line per type of another module that a public declaration names (`references Foundation.URL`; the standard
library's are left out). Synthesized members (Equatable's `!=` and the like) are left out.

    scripts/api-record.py                 prints the digest
    scripts/api-record.py --write         rewrites docs/api/ObjectStore.api (`make api-record`)
    scripts/api-record.py --check         compares with docs/api/ObjectStore.api: the added and removed lines, exit 1
    scripts/api-record.py --json          {"lines": [...], "types": [...], "undocumented": [...]} for PublicAPITests
    scripts/api-record.py --undocumented  the public symbols without a doc comment

--build-dir DIR names another debug build folder (default .build/debug, beside this script's package).
"""

import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RECORD = os.path.join(ROOT, "docs", "api", "ObjectStore.api")
MODULE = "ObjectStore"
HEADER = [
    "# ObjectStore's public API, recorded: one line per public symbol, conformance and type of another module named.",
    "# `make api-record` rewrites this file (scripts/api-record.py); PublicAPITests fails when the module differs from it.",
]
TYPE_KINDS = {"struct", "class", "enum", "protocol", "typealias", "actor"}


def module_maps(build_dir):
    """The C modules' maps a build of ObjectStore reads: the package's own system libraries and its dependencies'
    C targets (GRDB's SQLite module, Yams' CYaml), as `swift build` passes them. The dependencies are checked out
    in the build's scratch folder (.build/checkouts beside .build/x86_64-unknown-linux-gnu/debug)."""
    tops = [os.path.join(ROOT, "Sources")]
    checkouts = os.path.join(os.path.dirname(os.path.dirname(build_dir)), "checkouts")
    if not os.path.isdir(checkouts):
        checkouts = os.path.join(ROOT, ".build", "checkouts")
    if os.path.isdir(checkouts):
        tops += [os.path.join(checkouts, name, "Sources") for name in sorted(os.listdir(checkouts))]
    maps = []
    for top in tops:
        if not os.path.isdir(top):
            continue
        for name in sorted(os.listdir(top)):
            for place in ("", "include"):
                path = os.path.join(top, name, place, "module.modulemap")
                if os.path.isfile(path):
                    maps.append(path)
    return maps


def pkg_config_includes():
    with open(os.path.join(ROOT, "Package.swift")) as f:
        names = re.findall(r'pkgConfig:\s*"([^"]+)"', f.read())
    if not names:
        return []
    done = subprocess.run(["pkg-config", "--cflags-only-I"] + names, capture_output=True, text=True)
    return done.stdout.split() if done.returncode == 0 else []


def extract(build_dir):
    # One spelling of the folder (.build/debug is a link), and a module cache of the extractor's own: clang's
    # modules cached under two spellings of one folder are refused as defined twice.
    build_dir = os.path.realpath(build_dir)
    modules = os.path.join(build_dir, "Modules")
    if not os.path.isfile(os.path.join(modules, MODULE + ".swiftmodule")):
        sys.exit(f"api-record: {modules}/{MODULE}.swiftmodule is missing; run `swift build --build-tests` first")
    with tempfile.TemporaryDirectory() as out:
        command = ["swift", "symbolgraph-extract", "-module-name", MODULE, "-minimum-access-level", "public",
                   "-skip-synthesized-members", "-I", modules, "-output-dir", out,
                   "-module-cache-path", os.path.join(build_dir, "APIRecordModuleCache")]
        for path in module_maps(build_dir):
            command += ["-Xcc", "-fmodule-map-file=" + path, "-Xcc", "-I" + os.path.dirname(path)]
        # The system libraries' headers where pkg-config finds them (libpq's are in /usr/include/postgresql), as
        # SwiftPM passes them to the build for each `pkgConfig:` of Package.swift.
        command += [flag for include in pkg_config_includes() for flag in ("-Xcc", include)]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit("api-record: swift symbolgraph-extract failed:\n" + done.stderr + done.stdout)
        graphs = {}
        for name in sorted(os.listdir(out)):
            if name.endswith(".symbols.json"):
                with open(os.path.join(out, name), encoding="utf-8") as f:
                    graphs[name[:-len(".symbols.json")]] = json.load(f)
        return graphs


def demangle(usrs):
    """Module-qualified names of Swift USRs (s:...), by swift-demangle."""
    usrs = sorted(usrs)
    if not usrs:
        return {}
    done = subprocess.run(["swift", "demangle", "--compact", "--type"] + [u[2:] for u in usrs],
                          capture_output=True, text=True, check=True)
    return dict(zip(usrs, done.stdout.splitlines()))


def declaration(symbol):
    text = "".join(f["spelling"] for f in symbol.get("declarationFragments", []))
    return re.sub(r"\s+", " ", text).strip()


def digest(graphs):
    lines, types, undocumented = set(), set(), []
    known = {}
    for graph in graphs.values():
        for s in graph["symbols"]:
            known[s["identifier"]["precise"]] = s
    foreign = {}
    for graph_name, graph in graphs.items():
        # ObjectStore@Swift: ObjectStore's extensions of another module's types.
        prefix = MODULE if graph_name == MODULE else graph_name.split("@", 1)[1]
        for s in graph["symbols"]:
            kind = s["kind"]["identifier"].split(".", 1)[1]
            path = ".".join([prefix] + s["pathComponents"])
            lines.add(f"{kind} {path}: {declaration(s)}")
            if kind in TYPE_KINDS and graph_name == MODULE and len(s["pathComponents"]) == 1:
                types.add(s["pathComponents"][0])
            if not s.get("docComment"):
                undocumented.append(f"{kind} {path}")
            for f in s.get("declarationFragments", []):
                usr = f.get("preciseIdentifier")
                if f["kind"] == "typeIdentifier" and usr and usr not in known:
                    foreign[usr] = f["spelling"]
        for r in graph.get("relationships", []):
            if r["kind"] != "conformsTo" or r["source"] not in known:
                continue
            source = known[r["source"]]
            if source["kind"]["identifier"].split(".", 1)[1] not in TYPE_KINDS:
                continue
            target = known.get(r["target"])
            name = ".".join(target["pathComponents"]) if target else r.get("targetFallback", r["target"])
            name = re.sub(r"^Swift\.", "", name)
            if name == "SendableMetatype":  # implied by Sendable
                continue
            condition = ""
            if r.get("swiftConstraints"):
                condition = " where " + ", ".join(f"{c['lhs']} {':' if c['kind'] == 'conformance' else '=='} {c['rhs']}"
                                                  for c in r["swiftConstraints"])
            lines.add(f"conforms {prefix}.{'.'.join(source['pathComponents'])}: {name}{condition}")
    names = demangle(u for u in foreign if u.startswith("s:"))
    for usr, spelling in foreign.items():
        if usr.startswith("s:"):
            qualified = names.get(usr, spelling)
            if not qualified.startswith(("Swift.", "<<")):
                lines.add(f"references {qualified}")
        else:
            lines.add(f"references C.{spelling}")
    return sorted(lines), sorted(types), sorted(undocumented)


def read_record():
    if not os.path.isfile(RECORD):
        return []
    with open(RECORD, encoding="utf-8") as f:
        return [line for line in f.read().splitlines() if line and not line.startswith("#")]


def main(argv):
    build_dir = os.path.join(ROOT, ".build", "debug")
    if not os.path.isdir(build_dir):  # the link SwiftPM makes at the end of a build
        build_dir = os.path.join(ROOT, ".build", os.uname().machine + "-unknown-linux-gnu", "debug")
    if "--build-dir" in argv:
        build_dir = os.path.abspath(argv[argv.index("--build-dir") + 1])
    lines, types, undocumented = digest(extract(build_dir))
    if "--json" in argv:
        json.dump({"lines": lines, "types": types, "undocumented": undocumented}, sys.stdout, indent=1)
        print()
    elif "--write" in argv:
        os.makedirs(os.path.dirname(RECORD), exist_ok=True)
        with open(RECORD, "w", encoding="utf-8") as f:
            f.write("\n".join(HEADER + lines) + "\n")
        print(f"api-record: {os.path.relpath(RECORD, ROOT)}: {len(lines)} lines, {len(types)} public types")
    elif "--check" in argv:
        recorded = read_record()
        added = sorted(set(lines) - set(recorded))
        removed = sorted(set(recorded) - set(lines))
        for line in added:
            print("+ " + line)
        for line in removed:
            print("- " + line)
        if added or removed:
            print("ObjectStore's public API differs from docs/api/ObjectStore.api: run make api-record")
            return 1
        print(f"api-record: ObjectStore's public API is the recorded one ({len(lines)} lines)")
    elif "--undocumented" in argv:
        print("\n".join(undocumented))
    else:
        print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
