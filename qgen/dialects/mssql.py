"""SQL Server (T-SQL). The GO batch separator is a client convention, not T-SQL: it is known here only."""

from __future__ import annotations

import glob
import json
import os
import platform
import re
from dataclasses import dataclass
from typing import Optional

from qgen.dialects import CreatedName, Dialect, find_created, register

# GO alone on its line (optionally followed by a repeat count, which qgen never emits), any case.
_GO_LINE = re.compile(r"^[ \t]*GO(?:[ \t]+\d+)?[ \t]*(?:--[^\n]*)?$", re.IGNORECASE | re.MULTILINE)


def split_batches(script: str) -> list[str]:
    """Cut a T-SQL script on GO lines; returns the non-blank batches in order."""
    return [batch.strip("\n") for batch in _GO_LINE.split(script) if batch.strip()]


def batch_spans(script: str) -> list[tuple[int, str]]:
    """Like split_batches, but also returns the 1-based line where each batch starts in the script."""
    spans: list[tuple[int, str]] = []
    start = 0
    for match in list(_GO_LINE.finditer(script)) + [None]:
        end = match.start() if match else len(script)
        chunk = script[start:end]
        if chunk.strip():
            leading = len(chunk) - len(chunk.lstrip("\n"))
            first_line = script.count("\n", 0, start) + 1 + leading
            spans.append((first_line, chunk.strip("\n")))
        if match:
            start = match.end()
    return spans


_QUOTED = r"\[(?:[^\]]|\]\])+\]"
# Tables, views, procedures, functions and constraints share one namespace per schema (sys.objects);
# types have their own (sys.types), indexes one per table, roles one per database.
_CREATED = [
    (r"CREATE (?:UNIQUE )?(?:CLUSTERED |NONCLUSTERED )?INDEX {name}\s+ON\s+{table}", "index", "index"),
    (r"CREATE TABLE {qname}", "table", "object"),
    (r"CREATE (?:OR ALTER )?VIEW {qname}", "view", "object"),
    (r"CREATE (?:OR ALTER )?(?:PROCEDURE|PROC|FUNCTION|TRIGGER) {qname}", "procedure", "object"),
    (r"CREATE SEQUENCE {qname}", "sequence", "object"),
    (r"CONSTRAINT {name}", "constraint", "object"),
    (r"CREATE TYPE {qname}", "type", "type"),
    (r"CREATE ROLE {name}", "role", "role"),
]


def _unquote(quoted: str) -> str:
    return quoted[1:-1].replace("]]", "]")


def created_names(script: str) -> list[CreatedName]:
    """Every name the script creates; an index's namespace is its table."""
    return [CreatedName(what, _unquote(name), f"index on {_unquote(table)}" if table else namespace)
            for what, namespace, name, table in find_created(script, _CREATED, _QUOTED)]


def index_key_bytes(t) -> int | None:
    """Most bytes a value takes in an index key: nvarchar 2 bytes a character; text and json are
    nvarchar(max) and xml, which cannot be key columns."""
    fixed = {"int": 4, "bigint": 8, "uuid": 16, "bool": 1, "datetime": 8}
    if t.kind == "string":
        return 2 * t.length
    if t.kind == "decimal":
        return 5 if t.precision <= 9 else 9 if t.precision <= 19 else 13 if t.precision <= 28 else 17
    return fixed.get(t.kind)


# ---------------------------------------------------------------------------------------------
# ODBC drivers: what each can do, known by the file name of its library (SQL_DRIVER_NAME) or the
# name it is registered under in odbcinst.ini.


@dataclass(frozen=True)
class OdbcDriver:
    title: str
    # Names it goes by: prefixes of its library's file name, and names odbcinst.ini registers it under.
    libraries: tuple[str, ...]
    registered: tuple[str, ...]
    # Can it send a table-valued parameter (enqueue_batch)? Else the client sends JSON (enqueue_json).
    sends_table_valued_parameters: bool
    # Where the port goes in a connection string: SERVER=host,port, or a PORT= keyword of its own.
    port_in_server: bool

    def knows(self, name: str) -> bool:
        base = os.path.basename(name.strip().strip("{}")).lower()
        return base.startswith(self.libraries) or base in self.registered


MICROSOFT_ODBC = OdbcDriver(
    title="Microsoft ODBC Driver for SQL Server",
    libraries=("libmsodbcsql", "msodbcsql", "sqlncli"),
    registered=("odbc driver 18 for sql server", "odbc driver 17 for sql server", "sql server native client 11.0"),
    sends_table_valued_parameters=True,
    port_in_server=True,
)
FREETDS = OdbcDriver(
    title="FreeTDS", libraries=("libtdsodbc",), registered=("freetds",),
    sends_table_valued_parameters=False, port_in_server=False,
)
# Drivers not named here (the old `SQL Server` driver, others) are taken to send no TVP and to take PORT=.
OTHER_ODBC = OdbcDriver(title="an ODBC driver", libraries=(), registered=(),
                        sends_table_valued_parameters=False, port_in_server=False)
ODBC_DRIVERS = (MICROSOFT_ODBC, FREETDS)


def odbc_driver(name: str) -> OdbcDriver:
    """The driver a DRIVER= value or SQL_DRIVER_NAME names."""
    return next((driver for driver in ODBC_DRIVERS if driver.knows(name)), OTHER_ODBC)


def microsoft_odbc_path() -> Optional[str]:
    """Microsoft's ODBC Driver 18 as the PyPI package mssql-python-odbc (qgen[mssql]) installs it:
    the path of its library for this machine, which pyodbc loads as DRIVER={path}; None without it."""
    try:
        import mssql_python_odbc
    except ImportError:
        return None
    machine = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine().lower())
    if machine is None or not hasattr(mssql_python_odbc, "get_libs_dir"):
        return None
    libs = mssql_python_odbc.get_libs_dir()
    if platform.system() == "Darwin":
        patterns = [os.path.join(libs, "macos", machine, "lib", "libmsodbcsql.*.dylib")]
    else:
        patterns = [os.path.join(libs, "linux", family, machine, "lib", "libmsodbcsql-*.so*")
                    for family in _linux_families()]
    for pattern in patterns:
        found = sorted(glob.glob(pattern))
        if found:
            return found[-1]
    return None


def _linux_families() -> list[str]:
    """The driver builds to try, this distribution's family first (os-release ID and ID_LIKE)."""
    ids: list[str] = []
    try:
        with open("/etc/os-release", encoding="utf-8") as release:
            for line in release:
                key, _, value = line.strip().partition("=")
                if key in ("ID", "ID_LIKE"):
                    ids += value.strip('"').split()
    except OSError:
        pass
    family = {"debian": "debian_ubuntu", "ubuntu": "debian_ubuntu", "rhel": "rhel", "fedora": "rhel",
              "centos": "rhel", "suse": "suse", "sles": "suse", "opensuse": "suse", "alpine": "alpine"}
    first = [family[i] for i in ids if i in family]
    return list(dict.fromkeys(first + ["debian_ubuntu", "rhel", "suse"]))


MSSQL = register(
    Dialect(
        name="mssql",
        title="SQL Server (T-SQL)",
        batch_separator="GO\n",
        split_batches=split_batches,
        max_identifier_length=128,  # sysname: nvarchar(128), counted in characters
        identifier_size=len,
        identifier_unit="characters",
        created_names=created_names,
        max_index_key_bytes=1700,  # a nonclustered index key (SQL Server 2016 and later)
        index_key_bytes=index_key_bytes,
        lease_claims_in_place=False,
        id_list=lambda ids: json.dumps([int(i) for i in ids]),
        wait_for_work="dequeue",
    )
)
