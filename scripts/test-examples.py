#!/usr/bin/env python3
"""`make test-examples`: every example package in Examples/ (a folder with a Package.swift and expected-output.txt)
is built against this checkout of the library, in its own build folder (Examples/NAME/.build, ignored by git), and
run; what it prints must be its expected-output.txt byte for byte. Two tests per example: the build (which compiles
its compile test, a target naming every public type) and the run. Ends with `N passed, N failed, N skipped`, the
line .ci/run reads. First, the library's DocC archive is built as `make docs` builds it (a documentation warning
fails it), so that CI holds the docs as it holds the examples."""

import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SWIFT = os.environ.get("SWIFT", "swift")


def main():
    examples = os.path.join(ROOT, "Examples")
    names = sorted(n for n in os.listdir(examples)
                   if os.path.isfile(os.path.join(examples, n, "Package.swift")))
    passed = failed = skipped = 0
    start = time.monotonic()
    docs = subprocess.run(["make", "--no-print-directory", "docs", f"SWIFT={SWIFT}"], cwd=ROOT, capture_output=True, text=True)
    seconds = time.monotonic() - start
    if docs.returncode != 0:
        print(f"FAIL docs: make docs (exit {docs.returncode}, {seconds:.0f} s)\n{docs.stdout[-4000:]}{docs.stderr[-4000:]}")
        failed += 1
    else:
        print(f"ok   docs: make docs, no documentation warning ({seconds:.0f} s)")
        passed += 1
    for name in names:
        package = os.path.join(examples, name)
        scratch = os.path.join(package, ".build")
        expected_path = os.path.join(package, "expected-output.txt")
        start = time.monotonic()
        build = subprocess.run([SWIFT, "build", "--package-path", package, "--scratch-path", scratch, "-j", "2"],
                               capture_output=True, text=True)
        seconds = time.monotonic() - start
        if build.returncode != 0:
            print(f"FAIL {name}: build (exit {build.returncode}, {seconds:.0f} s)\n{build.stdout}{build.stderr}")
            failed += 1
            skipped += 1
            continue
        print(f"ok   {name}: build, the compile test included ({seconds:.0f} s)")
        passed += 1
        if not os.path.isfile(expected_path):
            print(f"SKIP {name}: run (no expected-output.txt)")
            skipped += 1
            continue
        start = time.monotonic()
        run = subprocess.run([SWIFT, "run", "--package-path", package, "--scratch-path", scratch, "--skip-build", name],
                             capture_output=True, text=True)
        seconds = time.monotonic() - start
        with open(expected_path, encoding="utf-8") as f:
            expected = f.read()
        if run.returncode != 0 or run.stdout != expected:
            failed += 1
            print(f"FAIL {name}: run (exit {run.returncode}, {seconds:.1f} s)")
            if run.stderr:
                print("stderr:\n" + run.stderr)
            if run.stdout != expected:
                import difflib
                sys.stdout.writelines(difflib.unified_diff(expected.splitlines(True), run.stdout.splitlines(True),
                                                           "expected-output.txt", "printed"))
        else:
            passed += 1
            print(f"ok   {name}: run, output as expected-output.txt ({seconds:.1f} s)")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
