"""Two runs of the suite against one PostgreSQL server do not interfere (two developers, or CI and a
developer, on one server). What could collide is what belongs to the whole server: roles (every
installed spec creates three, a bench's are named after its schema) and fixed database names. Each
run names them with its own token (tests/support/run.py); this test runs the pieces that create
them in two pytest processes at once, and both must pass.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

NESTED = "QGEN_TEST_NESTED_RUN"
# The tests that install specs (and their roles), use fixed database names, or run a bench.
PIECES = ["tests/test_postgres_install.py", "tests/pg_smoke", "tests/behaviour/test_grants.py", "tests/test_bench.py",
          "-k", "not test_bench or (a_small_run and lease-separate) or (refuses and load)"]


def test_two_runs_of_the_server_tests_at_once_both_pass(postgres_server):
    if os.environ.get(NESTED):
        pytest.skip("a run this test started: it does not start two more")
    # The shared server here is PostgreSQL: the nested runs leave the SQL Server halves out (in CI
    # they would install on Babelfish twice more, minutes of work that show nothing about sharing).
    env = {k: v for k, v in os.environ.items() if k != "QGEN_TEST_MSSQL_URL"} | {NESTED: "1"}
    runs = [subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *PIECES], cwd=ROOT,
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for _ in range(2)]
    outputs = []
    try:
        for run in runs:
            outputs.append(run.communicate(timeout=900)[0])
    finally:
        for run in runs:
            if run.poll() is None:
                run.kill()
    for run, output in zip(runs, outputs):
        assert run.returncode == 0, output[-4000:]
        assert " passed" in output.splitlines()[-1], output[-4000:]
