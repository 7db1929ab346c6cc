"""PostgreSQL: one class, PostgresDatabase, made of its script side (scripts.py: its facts and the
readers of its rendered scripts) and its client side (client.py: psycopg 3; its error table in errors.py)."""

from __future__ import annotations

from qgen.dialects.base import Database, register
from qgen.dialects.postgres.client import PostgresClient
from qgen.dialects.postgres.scripts import PostgresScripts


@register
class PostgresDatabase(PostgresScripts, PostgresClient, Database):
    name = "postgres"
    title = "PostgreSQL"
