#!/usr/bin/env python3
"""Scores one run of the MCP conformance runner from its checks.json files.

usage: score.py EXPECTED_NAMES_FILE EXPECTED_COUNT OUTPUT_DIR

EXPECTED_NAMES_FILE holds the scored scenario names, one a line. OUTPUT_DIR is the runner's
`-o` directory: one `server-<scenario>-<timestamp>/checks.json` per scenario it ran.

A scored scenario passes iff its checks.json exists, is a JSON array of checks, and holds no
check with status FAILURE; a missing directory or file is a failure. Independently, any
`wire-schema-valid` or `wire-schema-harness-error` FAILURE in any scenario (scored or not)
fails the run. WARNINGs are reported, never failures. The last line printed is
`conformance: N passed, M failed`; the exit status is 0 only if every scored scenario passed,
the count of names is EXPECTED_COUNT and no wire-schema check failed.
"""

import json
import os
import re
import sys

DIR_NAME = re.compile(r"^server-(.+)-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$")
WIRE_CHECKS = {"wire-schema-valid", "wire-schema-harness-error"}


def load_runs(out_dir):
    """Maps each scenario name to the checks of its directory (None if unreadable)."""
    runs = {}
    for entry in sorted(os.listdir(out_dir)):
        match = DIR_NAME.match(entry)
        if not match:
            continue
        path = os.path.join(out_dir, entry, "checks.json")
        checks = None
        try:
            with open(path, encoding="utf-8") as f:
                loaded = json.load(f)
            if isinstance(loaded, list) and all(isinstance(c, dict) for c in loaded):
                checks = loaded
        except (OSError, ValueError):
            pass
        runs[match.group(1)] = checks
    return runs


def describe(check):
    text = f"{check.get('id')}: {check.get('status')}"
    if check.get("errorMessage"):
        text += f" - {check['errorMessage']}"
    details = check.get("details")
    if details is not None and check.get("status") == "FAILURE":
        text += f"\n        details: {json.dumps(details)[:600]}"
    return text


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    names_file, expected_count, out_dir = argv[1], int(argv[2]), argv[3]
    with open(names_file, encoding="utf-8") as f:
        names = [line.strip() for line in f if line.strip()]
    runs = load_runs(out_dir)
    problems = []
    if len(names) != expected_count:
        problems.append(f"expected {expected_count} scored scenarios, the runner lists {len(names)}")

    passed, failed, warnings = 0, 0, 0
    for name in names:
        if name not in runs:
            failed += 1
            print(f"  FAILED  {name}: no output directory (the scenario did not run)")
            continue
        checks = runs[name]
        if checks is None:
            failed += 1
            print(f"  FAILED  {name}: no readable checks.json")
            continue
        failures = [c for c in checks if c.get("status") == "FAILURE"]
        warned = [c for c in checks if c.get("status") == "WARNING"]
        warnings += len(warned)
        if failures:
            failed += 1
            print(f"  FAILED  {name}")
            for c in failures:
                print(f"      {describe(c)}")
        else:
            passed += 1
        for c in warned:
            print(f"  warning {name}: {describe(c)}")

    wire_failures = 0
    for name, checks in sorted(runs.items()):
        for c in checks or []:
            if c.get("id") in WIRE_CHECKS and c.get("status") == "FAILURE":
                wire_failures += 1
                print(f"  WIRE    {name}: {describe(c)}")
    if wire_failures:
        problems.append(f"{wire_failures} wire-schema check(s) failed")

    unscored = sorted(set(runs) - set(names))
    if unscored:
        failing = [n for n in unscored if any(c.get("status") == "FAILURE" for c in runs[n] or [])]
        print(
            f"  not scored: {len(unscored)} scenario(s) ran, {len(failing)} failing"
            + (f" ({', '.join(failing)})" if failing else "")
        )
    if warnings:
        print(f"  {warnings} warning(s) in scored scenarios")
    for problem in problems:
        print(f"  ERROR   {problem}")
    print(f"conformance: {passed} passed, {failed} failed")
    return 0 if failed == 0 and not problems else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
