"""How many of the SQL Server tests execute on a T-SQL engine (docs/testing.md, "What runs on Babelfish").

    QGEN_TEST_MSSQL_URL=mssql+pyodbc://... .venv/bin/python scripts/babelfish_coverage.py

1. The SQL Server tests' ids: those that skip at setup for want of a T-SQL engine (pytest
   --setup-only without QGEN_TEST_MSSQL_URL: "QGEN_TEST_MSSQL_URL is not set").
2. Those ids run against the engine QGEN_TEST_MSSQL_URL names (Babelfish in CI). Each is passed,
   failed, marked (`babelfish_gap`, counted per gap) or skipped by design on any server (its SQL
   Server case is PostgreSQL-only): the SQL Server tests are all but the last.
Prints the counts; exits 1 if a test failed.
"""

from __future__ import annotations

import collections
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MISSING = "QGEN_TEST_MSSQL_URL is not set"


def run_pytest(args: list[str], env: dict[str, str], xml: Path) -> list[ET.Element]:
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={xml}", *args],
                   cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return list(ET.parse(xml).iter("testcase"))


def test_id(case: ET.Element) -> str:
    return case.get("classname", "").replace(".", "/") + ".py::" + case.get("name", "")


def main() -> int:
    if not os.environ.get("QGEN_TEST_MSSQL_URL"):
        print("set QGEN_TEST_MSSQL_URL to the T-SQL engine to count against", file=sys.stderr)
        return 2
    without = {k: v for k, v in os.environ.items() if k != "QGEN_TEST_MSSQL_URL"}
    with tempfile.TemporaryDirectory() as tmp:
        setup = run_pytest(["tests", "--ignore=tests/test_shared_server.py", "--setup-only"], without, Path(tmp, "setup.xml"))
        ids = [test_id(c) for c in setup if MISSING in (getattr(c.find("skipped"), "attrib", {}).get("message") or "")]
        Path(tmp, "ids.txt").write_text("\n".join(ids))
        cases = run_pytest([f"@{Path(tmp, 'ids.txt')}"], dict(os.environ), Path(tmp, "run.xml"))
    outcome: collections.Counter = collections.Counter()
    gaps: collections.Counter = collections.Counter()
    for case in cases:
        skipped = case.find("skipped")
        message = (skipped.get("message") or "") if skipped is not None else ""
        gap = re.search(r"Babelfish gap (B\d+)", message)
        if case.find("failure") is not None or case.find("error") is not None:
            outcome["failed"] += 1
            print("failed:", test_id(case))
        elif skipped is None:
            outcome["passed"] += 1
        elif "xfail" in (skipped.get("type") or ""):
            outcome["xfailed"] += 1
        elif gap:
            gaps[gap.group(1)] += 1
        else:
            outcome["by design"] += 1
    sql_server = len(cases) - outcome["by design"]
    executed = outcome["passed"] + outcome["failed"] + outcome["xfailed"]
    print(f"ids skipping without an engine: {len(cases)}; skipped by design on any server: {outcome['by design']}")
    print(f"SQL Server tests: {sql_server}; executed: {executed} ({100 * executed / max(sql_server, 1):.1f}%): "
          f"passed {outcome['passed']}, failed {outcome['failed']}, xfailed {outcome['xfailed']}")
    print("marked: " + ", ".join(f"{g} {n}" for g, n in gaps.most_common()) + f" ({sum(gaps.values())})")
    return 1 if outcome["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
