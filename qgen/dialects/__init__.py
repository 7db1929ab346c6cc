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

__all__ = ["CreatedName", "Dialect", "Grant", "Index", "Routine", "code_only", "find_created", "parenthesised",
           "register", "split_top_level", "get", "names"]


def get(name: str) -> Dialect:
    _load_builtin()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown dialect {name!r}; known: {', '.join(sorted(_REGISTRY))}") from None


def names() -> list[str]:
    _load_builtin()
    return sorted(_REGISTRY)


def _load_builtin() -> None:
    from qgen.dialects import mssql, postgres  # noqa: F401  (import registers them)
