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
