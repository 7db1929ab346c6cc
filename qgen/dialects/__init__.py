"""Dialect registry: one module per database, registered by name (as alembic does in alembic/ddl).

Everything that differs between databases outside the templates lives in these modules:
how a script is cut into batches, which file extension and comment style it uses, and how
a rendered script is split for execution. Templates live in templates/<dialect>/ and fall
back to templates/default/.
"""

from __future__ import annotations

from qgen.dialects.base import (
    _REGISTRY, CreatedName, Dialect, Grant, Index, Routine, code_only, find_created, parenthesised, register,
    split_top_level,
)

from qgen.dialects.client_base import _CLIENTS, ClientDriver

__all__ = ["ClientDriver", "client_driver", "CreatedName", "Dialect", "Grant", "Index", "Routine", "code_only", "find_created", "parenthesised",
           "register", "split_top_level", "get", "names"]


def get(name: str) -> Dialect:
    _load_builtin()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown dialect {name!r}; known: {', '.join(sorted(_REGISTRY))}") from None


def client_driver(name: str) -> type[ClientDriver]:
    """The client driver class of a dialect (qgen/dialects/client_base.py): how QueueClient talks to it."""
    _load_builtin()
    try:
        return _CLIENTS[name]
    except KeyError:
        raise ValueError(f"unknown dialect {name!r}; accepted: {', '.join(sorted(_CLIENTS))}") from None


def client_for_connection(connection: object) -> type[ClientDriver]:
    """The client driver whose DB-API module made this connection (psycopg 3, pyodbc)."""
    _load_builtin()
    module = type(connection).__module__.split(".")[0]
    for driver in _CLIENTS.values():
        if driver.driver_module == module:
            return driver
    accepted = " or ".join(f"dialect={d.name!r} ({d.driver_module})" for d in _CLIENTS.values())
    raise ValueError(f"cannot tell the database of a {type(connection).__module__}.{type(connection).__name__} "
                     f"connection; pass {accepted}")


def client_for_error(exc: BaseException) -> ClientDriver:
    """A client driver of the DB-API module that raised this error (the defaults, which know no
    code, for any other): a session without a connection yet reads a failed connect with it."""
    _load_builtin()
    module = type(exc).__module__.split(".")[0]
    for driver in _CLIENTS.values():
        if driver.driver_module == module:
            return driver()
    return ClientDriver()


def names() -> list[str]:
    _load_builtin()
    return sorted(_REGISTRY)


def _load_builtin() -> None:
    from qgen.dialects import mssql, mssql_client, postgres, postgres_client  # noqa: F401  (import registers them)
