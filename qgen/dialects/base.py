"""One object per database (as alembic's ddl/impl.py has one DefaultImpl subclass per dialect):
`Database` holds the defaults of both sides, a database's class in qgen/dialects/<name>/ overrides what
differs and registers itself under its dialect's name. The script side (qgen/dialects/scripts.py:
facts and readers of rendered SQL) and the client side (qgen/dialects/client.py: calls, values,
connections, errors) are the two halves each class is composed of. The database packages import this
module, not qgen.dialects, so that the package (which loads them) and they form no import circle."""

from __future__ import annotations

from typing import TypeVar

from qgen.dialects.client import ClientSide
from qgen.dialects.scripts import ScriptSide


class Database(ScriptSide, ClientSide):
    """One database as qgen renders for it and its client talks to it. Facts are class attributes;
    an instance carries only what one client chooses (batch_via) and learns of its connection."""

    def __init__(self, batch_via: str = "auto"):
        self.batch_via = batch_via


_REGISTRY: dict[str, type[Database]] = {}
D = TypeVar("D", bound=type[Database])


def register(database: D) -> D:
    """Register a database's class under its dialect's name (a class decorator)."""
    _REGISTRY[database.name] = database
    return database
