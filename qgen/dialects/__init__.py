"""The databases qgen knows, one class each, registered by dialect name (as alembic does in alembic/ddl):
`get(name)` is the one way in. Everything that differs between databases outside the templates is a
class attribute or a method of a database's class (qgen/dialects/base.py: Database and its defaults;
qgen/dialects/<name>/: the overrides). Templates live in templates/<dialect>/ and fall back to
templates/default/.
"""

from __future__ import annotations

from qgen.dialects.base import _REGISTRY, Database, register
from qgen.dialects.scripts import CreatedName, Grant, Index, Routine

__all__ = ["Database", "CreatedName", "Grant", "Index", "Routine", "register", "get", "of_connection", "of_error",
           "names", "client_driver"]


def get(name: str, batch_via: str = "auto") -> Database:
    """The database of a dialect name; batch_via: how its client sends enqueue_many's batches."""
    _load_builtin()
    try:
        return _REGISTRY[name](batch_via)
    except KeyError:
        raise ValueError(f"unknown dialect {name!r}; accepted: {', '.join(sorted(_REGISTRY))}") from None


def of_connection(connection: object, batch_via: str = "auto") -> Database:
    """The database whose DB-API module (psycopg 3, pyodbc) made this connection."""
    _load_builtin()
    module = type(connection).__module__.split(".")[0]
    for database in _REGISTRY.values():
        if database.driver_module == module:
            return database(batch_via)
    accepted = " or ".join(f"dialect={d.name!r} ({d.driver_module})" for d in _REGISTRY.values())
    raise ValueError(f"cannot tell the database of a {type(connection).__module__}.{type(connection).__name__} "
                     f"connection; pass {accepted}")


def of_error(exc: BaseException) -> Database:
    """The database of the DB-API module that raised this error (the defaults, which know no code,
    for any other): a session without a connection yet reads a failed connect with it."""
    _load_builtin()
    module = type(exc).__module__.split(".")[0]
    for database in _REGISTRY.values():
        if database.driver_module == module:
            return database()
    return Database()


def client_driver(name: str) -> type[Database]:
    """The class of a dialect's database, for a migrations/env.py that an earlier `qgen init` wrote:
    it calls `client_driver(dialect)().sqlalchemy_url(url)`. New code calls get(name)."""
    _load_builtin()
    get(name)  # an unknown name: the same error as get's
    return _REGISTRY[name]


def names() -> list[str]:
    _load_builtin()
    return sorted(_REGISTRY)


def _load_builtin() -> None:
    from qgen.dialects import mssql, postgres  # noqa: F401  (import registers them)
