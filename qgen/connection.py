"""An import path kept for imports written by earlier versions: the migrations/env.py that `qgen init`
wrote does `from qgen.connection import dialect_of_target` (and, for SQL Server,
`mssql_connection_string`). The code lives in qgen.client.connection; new code imports from there.
"""

from __future__ import annotations

from qgen.client.connection import connection_factory, dialect_of_target, mssql_connection_string

__all__ = ["connection_factory", "dialect_of_target", "mssql_connection_string"]
