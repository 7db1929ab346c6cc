"""SQL Server: one class, MssqlDatabase, made of its script side (scripts.py: T-SQL's facts and the
readers of its rendered scripts) and its client side (client.py: pyodbc; its error table in errors.py,
its ODBC drivers and connection strings in odbc.py)."""

from __future__ import annotations

from qgen.dialects.base import Database, register
from qgen.dialects.mssql.client import MssqlClient
from qgen.dialects.mssql.scripts import MssqlScripts


@register
class MssqlDatabase(MssqlScripts, MssqlClient, Database):
    name = "mssql"
    title = "SQL Server (T-SQL)"
