"""Which database a URL or connection string names is decided in one place (qgen/dialects/urls.py), and the
client, the commands' --url, Alembic's env.py, a running revision and the bench all ask it."""

from __future__ import annotations

import pytest

from qgen import connection
from qgen.cli import dburl
from qgen.bench.database import BenchError, dialect_of
from qgen.migrations.manifest import DialectFiles, Manifest
from qgen.migrations.runner import _database
from qgen.dialects.urls import UnknownDatabase, database_of

ACCEPTED = [
    ("postgresql://postgres@127.0.0.1:5432/app", "postgres"),
    ("postgres://postgres@127.0.0.1/app", "postgres"),
    ("postgresql+psycopg://u:p@db.example:5432/app", "postgres"),
    ("  POSTGRESQL://u@h/app", "postgres"),
    ("host=127.0.0.1 port=5432 dbname=app user=postgres", "postgres"),
    ("mssql+pyodbc://sa:pass@127.0.0.1:1433/app?driver=FreeTDS&TDS_Version=7.4", "mssql"),
    ("mssql://sa:pass@127.0.0.1:1433/app", "mssql"),
    ("DRIVER={ODBC Driver 18 for SQL Server};SERVER=127.0.0.1,1433;UID=sa;PWD=pass", "mssql"),
    ("driver=FreeTDS;server=h;port=1433", "mssql"),
    # A URL's scheme alone: SQLAlchemy's dialect name, what a running Alembic knows of its database.
    ("postgresql", "postgres"),
    ("mssql", "mssql"),
]


@pytest.mark.parametrize("target, database", ACCEPTED, ids=[t for t, _ in ACCEPTED])
def test_the_forms_accepted(target, database):
    assert database_of(target) == database
    assert connection.dialect_of_target(target) == database


UNKNOWN = ["mysql://u:Sekrit-1@h/app", "sqlite:///app.db", "postgresql+asyncpg://u:Sekrit-1@h/app", "", "app",
           "oracle"]


@pytest.mark.parametrize("target", UNKNOWN)
def test_an_unknown_one_is_refused_naming_the_forms_accepted(target):
    with pytest.raises(UnknownDatabase) as refused:
        database_of(target)
    message = str(refused.value)
    assert "is not a database URL qgen knows; accepted: postgresql://" in message
    assert "mssql+pyodbc://" in message and "libpq DSN" in message and "ODBC connection string" in message
    assert "Sekrit-1" not in message
    assert isinstance(refused.value, ValueError), "callers that caught ValueError still do"


def test_the_commands_the_client_the_bench_and_a_revision_ask_the_same_place():
    assert connection.dialect_of_target is database_of, "the name env.py files written by qgen init import"
    with pytest.raises(dburl.DatabaseUnavailable, match="is not a database URL qgen knows") as refused:
        dburl.connect("mysql://u:Sekrit-1@h/app")
    assert "Sekrit-1" not in str(refused.value)
    with pytest.raises(ValueError, match="is not a database URL qgen knows"):
        connection.connection_factory("mysql://h/app")
    with pytest.raises(BenchError, match="is not a database URL qgen knows"):
        dialect_of("mysql://h/app")
    assert dialect_of("postgresql+psycopg://h/app") == "postgres"
    files = DialectFiles((), (), ())
    manifest = Manifest("0.1.0", "r1", "m", "queue.yaml", "s", None, (), {"postgres": files})
    assert _database(manifest, "postgresql") == "postgres"
    for name in ("mssql", "sqlite"):  # a database the revision has no SQL for, or one qgen does not know
        with pytest.raises(RuntimeError, match=f"has SQL for postgres, not for this {name} database"):
            _database(manifest, name)
