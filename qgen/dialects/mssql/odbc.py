"""SQL Server's ODBC side: which ODBC driver can do what (known by its library's file name or the
name odbcinst.ini registers it under), where qgen finds Microsoft's, and the connection string pyodbc
gets from a SQLAlchemy-style URL."""

from __future__ import annotations

import glob
import os
import platform
import re
from dataclasses import dataclass
from typing import Any, Optional

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


def mssql_connection_string(url: str, database: Optional[str] = None) -> str:
    """An ODBC connection string for pyodbc from mssql+pyodbc://user:pass@host:port/db?driver=...&Key=value
    (every query key other than driver is passed on). Without driver: Microsoft's ODBC Driver 18 when
    qgen[mssql] installed it (mssql-python-odbc, loaded by path), else FreeTDS (Debian's tdsodbc)."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if not parsed.drivername.startswith("mssql"):
        raise ValueError("expected mssql+pyodbc://user:pass@host:1433/db?driver=FreeTDS&TDS_Version=7.4")

    def value(text: Any) -> str:
        text = str(text)
        return "{" + text.replace("}", "}}") + "}" if re.search(r"[;{}\s]", text) else text

    query = {k: (v[-1] if isinstance(v, tuple) else v) for k, v in parsed.query.items()}
    embedded = next((v for k, v in query.items() if k.lower() == "odbc_connect"), None)
    if embedded is not None:  # mssql+pyodbc:///?odbc_connect=<a connection string>, as SQLAlchemy takes it
        return str(embedded)
    driver = query.pop("driver", None) or default_mssql_driver()
    host, port = parsed.host or "127.0.0.1", str(parsed.port or 1433)
    parts = {"DRIVER": "{" + driver + "}"}
    if odbc_driver(driver).port_in_server:
        parts["SERVER"] = f"{host},{port}"
    else:
        parts.update(SERVER=host, PORT=port)
    if database or parsed.database:
        parts["DATABASE"] = str(database or parsed.database)
    if parsed.username:
        parts["UID"] = parsed.username
    if parsed.password:
        parts["PWD"] = parsed.password
    parts.update(query)
    return ";".join(f"{k}={v if k == 'DRIVER' else value(v)}" for k, v in parts.items())


def odbc_pairs(odbc: str) -> list[tuple[str, str]]:
    """An ODBC connection string's key=value pairs, in order; a {braced} value (}} an escaped }) may
    hold ; and =."""
    pairs, at = [], 0
    while at < len(odbc):
        key_end = odbc.find("=", at)
        if key_end < 0:
            break
        key, at = odbc[at:key_end].strip(" ;"), key_end + 1
        if odbc[at:at + 1] == "{":
            close = at + 1
            while True:
                close = odbc.find("}", close)
                if close < 0 or odbc[close + 1:close + 2] != "}":
                    break
                close += 2
            close = len(odbc) if close < 0 else close
            value, at = odbc[at + 1:close].replace("}}", "}"), close + 1
        else:
            end = odbc.find(";", at)
            end = len(odbc) if end < 0 else end
            value, at = odbc[at:end], end
        pairs.append((key, value))
        at = odbc.find(";", at) + 1 if odbc.find(";", at) >= 0 else len(odbc)
    return pairs


def odbc_server_host(odbc: str) -> str:
    """The host name of an ODBC connection string's SERVER (without tcp:, a port or an instance)."""
    for part in odbc.split(";"):
        key, _, value = part.partition("=")
        if key.strip().upper() in ("SERVER", "ADDRESS", "ADDR"):
            host = value.strip().strip("{}")
            host = host[4:] if host.lower().startswith("tcp:") else host
            return host.split(",")[0].split("\\")[0].strip()
    return ""


def default_mssql_driver() -> str:
    """The ODBC driver a URL without driver= gets: Microsoft's by path, else FreeTDS."""
    return microsoft_odbc_path() or "FreeTDS"
