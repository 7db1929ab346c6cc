"""Small helpers for tests that talk SQL to a connection directly."""

from __future__ import annotations


def one(conn, sql, *args):
    """The first row of a query (None when there is none)."""
    return conn.execute(sql, args).fetchone()
