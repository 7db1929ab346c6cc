"""Alembic environment for this project's queue revisions (written by `qgen init`; the revisions by
`qgen revision`, see qgen's README "Use it from your own project"). Edit it as any env.py.

The database URL comes from `-x url=...` or, without it, from the QGEN_DATABASE_URL environment
variable (sqlalchemy.url in alembic.ini is the last resort). Both databases qgen renders for work:
  PostgreSQL, psycopg 3:  postgresql+psycopg://user:pass@host:5432/db
  SQL Server:             mssql+pyodbc://user:pass@host:1433/db (Microsoft's ODBC Driver 18, which
                          qgen[mssql] installs; ?driver=FreeTDS&TDS_Version=7.4 for FreeTDS)
A qgen revision picks its SQL by the connection's dialect at run time (qgen/migrations/runner.py).
"""

from __future__ import annotations

import os
from logging.config import fileConfig

from alembic import context
from sqlalchemy import create_engine, pool
from sqlalchemy.exc import DBAPIError

from qgen import dialects
from qgen.dialects.urls import database_of, hidden_in, redacted

URL_VARIABLE = "QGEN_DATABASE_URL"

config = context.config
if config.config_file_name is not None and config.attributes.get("configure_logger", True):
    fileConfig(config.config_file_name)


def given_url() -> str:
    """The database URL as given: -x url=..., $QGEN_DATABASE_URL or alembic.ini's sqlalchemy.url."""
    url = (context.get_x_argument(as_dictionary=True).get("url") or os.environ.get(URL_VARIABLE)
           or config.get_main_option("sqlalchemy.url"))
    if not url:
        raise SystemExit(f"qgen migrations: no database; set {URL_VARIABLE} or pass -x url=..., e.g. "
                         "postgresql+psycopg://user@host:5432/db or "
                         "mssql+pyodbc://user:pass@host:1433/db?driver=FreeTDS&TDS_Version=7.4")
    return url.strip()


def database_url(url: str) -> str:
    # The URL as SQLAlchemy must see it to connect the way qgen's own commands do (its
    # database class, qgen.dialects, knows: psycopg 3 for a plain postgresql://, Microsoft's ODBC driver when a SQL
    # Server URL names none).
    try:
        return dialects.get(database_of(url)).sqlalchemy_url(url)
    except ValueError as exc:
        raise SystemExit(f"qgen migrations: {exc}") from None


def run_migrations_offline() -> None:
    """`alembic upgrade head --sql`: print the SQL instead of running it."""
    context.configure(url=database_url(given_url()), literal_binds=True, dialect_opts={"paramstyle": "named"})
    with context.begin_transaction():
        context.run_migrations()


def connect(engine, url: str):
    """The engine's connection; a server that cannot be reached (down, no such database, login refused)
    ends the command with one line naming the URL (password hidden) and the server's answer."""
    try:
        return engine.connect()
    except DBAPIError as exc:
        answer = hidden_in(" ".join(str(exc.orig).split()), url) if exc.orig is not None else type(exc).__name__
        raise SystemExit(f"qgen migrations: cannot connect to {redacted(url)}: "
                         f"{answer}\n(create the database first, or point {URL_VARIABLE} / -x url=... at one "
                         "that exists)") from None


def run_migrations_online() -> None:
    url = given_url()
    engine = create_engine(database_url(url), poolclass=pool.NullPool)
    with connect(engine, url) as connection:
        context.configure(connection=connection)
        with context.begin_transaction():
            context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
