"""Spec paths and small helpers shared by the behavioural tests."""

from __future__ import annotations

import contextlib
import datetime as dt
import time
from typing import Iterator

import pytest

from qgen.client import PermissionDenied, error_kind
from qgen.dialects.mssql.errors import pyodbc_codes
from tests.conftest import ROOT
from tests.support.babelfish import BABELFISH_UNMAPPED, REWRITTEN
from tests.support.backends import QueueEnv

EX000 = ROOT / "examples" / "000_flag_worker.yaml"
EX001 = ROOT / "examples" / "001_watermark.yaml"
EX002 = ROOT / "examples" / "002_card_codes.yaml"
EX003 = ROOT / "examples" / "003_queue_sample.yaml"
EX004 = ROOT / "examples" / "004_rainfall.yaml"
FEAT = ROOT / "tests" / "specs" / "features_lease.yaml"
FEATD = ROOT / "tests" / "specs" / "features_delete.yaml"
BEHAVE = ROOT / "tests" / "behaviour" / "specs" / "behaviour.yaml"
HOSTILE_ISOLATION = ROOT / "tests" / "behaviour" / "specs" / "hostile_isolation.yaml"


def utc(value: dt.datetime) -> dt.datetime:
    """An aware UTC datetime; a naive one (SQL Server's datetime2) is UTC already."""
    return value.replace(tzinfo=dt.timezone.utc) if value.tzinfo is None else value.astimezone(dt.timezone.utc)


def db_now(env: QueueEnv) -> dt.datetime:
    """The database's clock, as an aware UTC datetime (the server may not share ours)."""
    return utc(env.scalar(f"SELECT {env.now}"))


def soon(env: QueueEnv) -> dt.timedelta:
    """How far ahead a test puts a job that must still be waiting while the test makes its first
    calls: 2 s; on Babelfish 8 s, where a session's first call of each procedure compiles it (about a
    second each: B23), so that its calls before the moment cannot run past it. Counted as a B23
    rewrite of what the harness sends."""
    if env.backend.babelfish:
        REWRITTEN["B23"] += 1
        return dt.timedelta(seconds=8)
    return dt.timedelta(seconds=2)


def wait_past(env: QueueEnv, moment: dt.datetime, limit: float = 30.0) -> None:
    """Sleep until the database's clock has passed moment (a lease expiry, a run_at)."""
    moment = utc(moment)
    give_up = time.monotonic() + limit
    while True:
        left = (moment - db_now(env)).total_seconds()
        if left < 0:
            return
        if time.monotonic() > give_up:
            raise AssertionError(f"the database clock did not pass {moment} within {limit}s")
        time.sleep(min(max(left + 0.02, 0.01), 1.0))


def xfail_on(request: pytest.FixtureRequest, dialect: str, which: str, reason: str) -> None:
    """Mark this test instance strictly expected to fail on one database (a known template bug)."""
    if dialect == which:
        request.node.add_marker(pytest.mark.xfail(strict=True, reason=reason))


def babelfish_refusal(exc: BaseException) -> bool:
    """Babelfish (gap B18) gives every PostgreSQL error it has no T-SQL number for one number,
    33557097, a permission refusal among them (SQL Server: 229/230): there only PostgreSQL's own words
    tell a refusal. Counted as a B18 rewrite of what the harness reads."""
    for one in (exc, exc.__cause__, exc.__context__):
        if one is not None and pyodbc_codes(one)[1] == {BABELFISH_UNMAPPED} and "permission denied for " in str(one):
            REWRITTEN["B18"] += 1
            return True
    return False


@contextlib.contextmanager
def denied(env: QueueEnv, by_client: bool = True) -> Iterator[None]:
    """The call inside is refused for lack of a permission: a client call raises PermissionDenied, a
    statement fails with the database's permission error (qgen.client.error_kind); on Babelfish,
    babelfish_refusal."""
    with pytest.raises(Exception) as caught:
        yield
    if env.backend.babelfish and not isinstance(caught.value, PermissionDenied):
        assert babelfish_refusal(caught.value), repr(caught.value)
    elif by_client:
        assert isinstance(caught.value, PermissionDenied), repr(caught.value)
    else:
        assert error_kind(env.dialect, caught.value) == "denied", caught.value


def assert_denied(env: QueueEnv, conn, sql: str) -> None:
    """The statement is refused for lack of a permission (not for any other reason)."""
    cursor = conn.cursor()
    with denied(env, by_client=False):
        cursor.execute(sql)
    try:
        conn.rollback()
    except Exception:
        pass

TWIN = ROOT / "tests" / "behaviour" / "specs" / "twin.yaml"


def call_sql(env: QueueEnv, queue: str, kind: str, args: str = "") -> str:
    """SQL that runs one of a queue's procedures by hand (args already in the dialect's syntax):
    PostgreSQL SELECT * FROM f(args) (CALL for procedures), SQL Server EXEC p args."""
    name = env.name(queue, kind)
    if env.dialect == "mssql":
        return f"EXEC {name} {args}"
    return f"CALL {name}({args})" if kind == "purge" else f"SELECT * FROM {name}({args})"
