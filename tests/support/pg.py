"""Scratch PostgreSQL databases for tests: each one is created fresh and dropped afterwards."""

from __future__ import annotations

import contextlib
import os
import uuid
from typing import Iterator

import psycopg
from psycopg import sql

# The server and admin database tests connect to; CI and developer machines run PostgreSQL 15 here.
ADMIN_URL = os.environ.get("QGEN_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/postgres")


def server_problem() -> str | None:
    """None when the test server answers, else why not (tests fail with it in CI, skip elsewhere)."""
    try:
        with psycopg.connect(ADMIN_URL, connect_timeout=5):
            return None
    except psycopg.Error as exc:
        return (f"PostgreSQL at {ADMIN_URL} is not reachable ({exc}); start it with "
                "`pg_ctlcluster --skip-systemctl-redirect 15 main start` or set QGEN_TEST_PG_URL")


def url_for(database: str) -> str:
    base, _, _ = ADMIN_URL.rpartition("/")
    return f"{base}/{database}"


@contextlib.contextmanager
def scratch_database(prefix: str = "qgen_test") -> Iterator[str]:
    """Create an empty database, yield its URL, drop it (and its connections) afterwards."""
    name = f"{prefix}_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield url_for(name)
    finally:
        with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def run_script(url: str, script: str) -> None:
    """Run a rendered PostgreSQL script in one go, as psql -f would (autocommit between statements)."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(script)


@contextlib.contextmanager
def uninstalled_at_the_end(url: str) -> Iterator[list]:
    """Yields a list to append each Rendering installed in the database at `url`; at the end each
    one is uninstalled (forced, latest first), so the roles it made, which belong to the whole
    cluster and outlive the database, go too."""
    installs: list = []
    try:
        yield installs
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("SET client_min_messages = warning")
            for rendering in reversed(installs):
                conn.execute(rendering.force_uninstall + rendering.uninstall)
