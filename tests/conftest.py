"""Shared fixtures: the repo root, the example specs, and a PostgreSQL server check that fails in CI."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))
COVERAGE_SPECS = sorted((ROOT / "tests" / "specs").glob("*.yaml"))
IN_CI = bool(os.environ.get("CI"))


def require(problem: str | None) -> None:
    """Skip with the reason on a developer machine; fail in CI, where everything must be there."""
    if problem:
        if IN_CI:
            pytest.fail(problem)
        pytest.skip(problem)


@pytest.fixture(scope="session")
def postgres_server() -> None:
    from tests.support.pg import server_problem

    require(server_problem())


@pytest.fixture(scope="module")
def throwaway_postgres():
    """A PostgreSQL server of this test module's own, which it may restart (tests/support/throwaway_pg.py)."""
    from tests.support.throwaway_pg import ThrowawayPostgres, problem

    require(problem())
    server = ThrowawayPostgres()
    try:
        server.start()
        yield server
    finally:
        server.stop()


def pytest_terminal_summary(terminalreporter) -> None:
    """On Babelfish: how many batches the harness rewrote around each gap (tests/support/babelfish.py)."""
    from tests.support.babelfish import REWRITTEN

    if REWRITTEN:
        counts = ", ".join(f"{gap} {n}" for gap, n in sorted(REWRITTEN.items(), key=lambda item: int(item[0][1:])))
        terminalreporter.write_line(f"Babelfish: batches rewritten around its gaps (tests/support/babelfish.py): {counts}")
