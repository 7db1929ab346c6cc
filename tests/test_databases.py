"""One object per database (qgen/dialects): each registered database is one class that states every
fact the defaults leave open and does everything the defaults cannot; the registry is the one way to
it, by name, by a connection's driver, or by a driver's error."""

from __future__ import annotations

import pytest

from qgen import dialects
from qgen.dialects import Database

# Facts Database leaves to each database (no default), and what it cannot do for one.
STATED = ("name", "title", "max_identifier_length", "identifier_unit", "max_index_key_bytes", "lease_claims_in_place",
          "wait_for_work")
DONE = ("created_names", "routines", "indexes", "grants", "statement", "connector", "transaction", "batch_call")


def test_the_defaults_leave_open_what_each_database_must_say():
    for fact in STATED:
        assert not hasattr(Database, fact), fact
    with pytest.raises(NotImplementedError):
        Database().created_names("CREATE TABLE t (a int);")


@pytest.mark.parametrize("name", dialects.names())
def test_each_database_is_one_object_that_says_and_does_it_all(name):
    database = dialects.get(name)
    assert type(database).__mro__.count(Database) == 1 and database.name == name
    for fact in STATED:
        assert getattr(database, fact) is not None, fact
    for method in DONE:
        assert getattr(type(database), method) is not getattr(Database, method), f"{name} does not override {method}"
    assert database.errors.codes, f"{name} has no error table"


def test_each_client_gets_its_own_object():
    one, other = dialects.get("mssql", batch_via="json"), dialects.get("mssql")
    assert one is not other and (one.batch_via, other.batch_via) == ("json", "auto")


def test_an_unknown_name_is_refused_with_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown dialect 'oracle'; accepted: mssql, postgres"):
        dialects.get("oracle")


def test_a_connection_or_error_of_another_driver_gets_the_defaults_or_a_refusal():
    with pytest.raises(ValueError, match="cannot tell the database"):
        dialects.of_connection(object())
    assert type(dialects.of_error(RuntimeError("x"))) is Database


def _dequeue_script(dialect: str) -> str:
    from pathlib import Path

    folder = Path(__file__).resolve().parent.parent / "generated" / "001_watermark" / dialect
    return next(folder.glob("*_testq_dequeue.sql")).read_text(encoding="utf-8")


@pytest.mark.parametrize("change, in_place", [
    (lambda s: s[:s.index("RETURNS SETOF")] + s[s.index("RETURNS SETOF"):].replace("\nBEGIN\n", "\nBEGIN\n    PERFORM 1;\n", 1),
     True),                                                                          # a body
    (lambda s: s.replace("ROWS ", "ROWS 1", 1), False),                                # the function's head
    (lambda s: s.replace('"enqueued_at"', '"enqueued_on"', 1), False),                 # the row type
    (lambda s: s + "\nGRANT SELECT ON TABLE x TO y;\n", False),                         # a statement more
    (lambda s: s + "\n-- a comment\n\n", True),
], ids=["body", "head", "row type", "statement", "comment"])
def test_postgres_replaces_a_routine_in_place_only_when_nothing_but_bodies_changed(change, in_place):
    """A revision runs CREATE OR REPLACE over the installed routines (no drop: their oids, grants and row
    types stay, and live sessions go on) only when the old and new scripts differ in routine bodies."""
    script = _dequeue_script("postgres")
    assert change(script) != script or in_place
    assert dialects.get("postgres").replaces_in_place(script, change(script)) is in_place


def test_sql_server_drops_and_creates_a_changed_procedure():
    script = _dequeue_script("mssql")
    assert dialects.get("mssql").replaces_in_place(script, script + "\n") is False
