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


def _roles_of_this_run() -> list[str]:
    import psycopg

    from tests.support.pg import ADMIN_URL
    from tests.support.run import TOKEN

    try:
        with psycopg.connect(ADMIN_URL, connect_timeout=5) as conn:
            return [name for name, in conn.execute("SELECT rolname FROM pg_catalog.pg_roles WHERE rolname LIKE %s "
                                                   "ORDER BY 1", (f"%{TOKEN}%",))]
    except psycopg.OperationalError:
        return []  # no server: the tests that need one skipped (or failed, in CI)


@pytest.fixture(scope="session", autouse=True)
def leaves_no_roles_behind():
    """Roles belong to the whole PostgreSQL cluster, which other runs share: a run must drop every
    role it made (they all carry its token, tests/support/run.py). Checked when the session ends;
    a leak fails the run, naming the roles (and they are dropped, so the server stays clean)."""
    before = set(_roles_of_this_run())
    yield
    leaked = [role for role in _roles_of_this_run() if role not in before]
    if not leaked:
        return
    import psycopg

    from tests.support.pg import ADMIN_URL

    with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
        for role in leaked:
            try:
                conn.execute(f'DROP ROLE IF EXISTS "{role}"')
            except psycopg.Error:
                pass  # still granted or owning something in a database that was kept: left for a person
    pytest.fail(f"this run left {len(leaked)} role(s) carrying its token on the shared server: {', '.join(leaked)}",
                pytrace=False)


def pytest_sessionfinish(session) -> None:
    """A test process of pytest-xdist hands its Babelfish counts to the run's controller."""
    from tests.support.babelfish import REWRITTEN

    if hasattr(session.config, "workeroutput"):
        session.config.workeroutput["babelfish_rewritten"] = dict(REWRITTEN)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    from tests.support.babelfish import REWRITTEN

    REWRITTEN.update(getattr(node, "workeroutput", {}).get("babelfish_rewritten", {}))


def pytest_terminal_summary(terminalreporter) -> None:
    """On Babelfish: how many batches the harness rewrote around each gap (tests/support/babelfish.py)."""
    from tests.support.babelfish import REWRITTEN

    if REWRITTEN:
        counts = ", ".join(f"{gap} {n}" for gap, n in sorted(REWRITTEN.items(), key=lambda item: int(item[0][1:])))
        terminalreporter.write_line(f"Babelfish: batches rewritten around its gaps (tests/support/babelfish.py): {counts}")
