"""SQL Server's client side (pyodbc): procedures called with EXEC and named parameters (@name = ?),
several result sets per call, an autocommit connection with explicit transactions, naive UTC
datetimes, JSON as text, enqueue_many's jobs as a table-valued parameter or one JSON document, and
SQL Server error numbers read from pyodbc's diagnostic records (qgen/dialects/mssql/errors.py)."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import re
from typing import Any, Callable, Iterator, Optional, Sequence

from qgen.dialects.client import Batch, ClientSide, Params, json_default, unknown_host, utc
from qgen.dialects.mssql.errors import ERRORS, pyodbc_codes
from qgen.dialects.mssql.odbc import mssql_connection_string, odbc_driver, odbc_pairs, odbc_server_host
from qgen.dialects.urls import UnknownDatabase, redacted


def odbc_as_url(odbc: str) -> str:
    """An ODBC connection string as a URL SQLAlchemy takes: DRIVER, SERVER (host or host,port),
    DATABASE, UID and PWD in the URL's places, its password where SQLAlchemy hides it (an env.py that an
    earlier qgen init wrote prints the URL so); other keys in its query. A string of another shape goes
    whole into odbc_connect=, unless its password holds a ; (then it is refused: an earlier env.py
    would show the part after it)."""
    from urllib.parse import quote_plus

    from sqlalchemy.engine import URL

    keys = {key.upper(): value for key, value in odbc_pairs(odbc)}
    server = re.fullmatch(r"(?:tcp:)?([\w.-]+)(?:,(\d{1,5}))?", keys.get("SERVER", "").strip())
    if server and keys.get("DRIVER") and keys.get("DATABASE"):
        rest = {key: value for key, value in odbc_pairs(odbc)
                if key.upper() not in ("DRIVER", "SERVER", "DATABASE", "UID", "PWD")}
        return URL.create("mssql+pyodbc", username=keys.get("UID"), password=keys.get("PWD"), host=server.group(1),
                          port=int(server.group(2)) if server.group(2) else None, database=keys["DATABASE"],
                          query={"driver": keys["DRIVER"], **rest}).render_as_string(hide_password=False)
    if ";" in keys.get("PWD", ""):
        raise UnknownDatabase(f"{redacted(odbc)!r}: an ODBC connection string without DRIVER, SERVER (host or "
                              "host,port) and DATABASE whose password holds ';'; accepted: those three keys, or "
                              "mssql+pyodbc://USER:PASS@HOST:PORT/DB?driver=...")
    return "mssql+pyodbc:///?odbc_connect=" + quote_plus(odbc)


class MssqlClient(ClientSide):
    driver_module = "pyodbc"
    driver_needed = ("SQL Server needs pyodbc: pip install 'qgen-queues[mssql]' (it brings Microsoft's ODBC Driver 18; "
                     "or Debian's tdsodbc with driver=FreeTDS)")
    errors = ERRORS
    # The procedures manage their own transactions (BEGIN/COMMIT, and ROLLBACK + THROW on error).
    # Under ODBC's implicit transactions (autocommit off) their first SELECT would open an outer
    # transaction they do not commit (error 266), so calls run in autocommit mode and transaction()
    # opens an explicit one.
    autocommit_calls = True
    has_enqueue_json = True
    reads_every_result_set = True
    json_comes_parsed = False  # nvarchar JSON: json_out parses it
    # Per client, once asked (sends_table_valued_parameters): the connection's driver sends table-valued parameters.
    _tvp: Optional[bool] = None

    def quote(self, name: str) -> str:
        return "[" + name.replace("]", "]]") + "]"

    def example_call(self, routine: str, args: Sequence[tuple[str, str]], shape: str,
                     table_type: Optional[str] = None) -> list[str]:
        if table_type:
            return [f"-- SQL Server: @jobs is a table of type {table_type} (or call enqueue_json with the JSON array)"]
        named = ", ".join(f"@{name} = {'1' if value == 'true' else self.literal(value)}" for name, value in args)
        return ["-- SQL Server", f"EXEC {routine}{' ' + named if named else ''};"]

    def statement(self, routine: str, params: Params, shape: str) -> str:
        args = ", ".join(f"@{p} = ?" for p, _ in params)
        if shape == "scalar":
            return (f"SET NOCOUNT ON; DECLARE @qgen_return int; EXEC @qgen_return = {routine} {args}; "
                    "SELECT @qgen_return AS [return_value];")
        return f"SET NOCOUNT ON; EXEC {routine} {args};"

    @staticmethod
    def text_length(value: str) -> int:
        """nvarchar(n) holds n UTF-16 code units: a character outside the Basic Multilingual Plane takes two."""
        return len(value.encode("utf-16-le", "surrogatepass")) // 2

    def datetime_in(self, value: dt.datetime) -> Any:
        """datetime2 holds no zone: UTC, naive."""
        return utc(value).replace(tzinfo=None)

    def json_out(self, value: Any) -> Any:
        return json.loads(value) if isinstance(value, (str, bytes)) else value

    def sqlalchemy_url(self, url: str) -> str:
        """A SQL Server URL without driver= gets the driver qgen's own commands take (Microsoft's ODBC
        Driver 18, loaded by path, else FreeTDS): SQLAlchemy alone would ask the ODBC manager for a
        driver by name and fail with IM002."""
        from urllib.parse import quote_plus

        from sqlalchemy import make_url

        if "://" not in url:  # an ODBC connection string
            return odbc_as_url(url)
        parsed = make_url(url)
        if parsed.drivername in ("mssql", "mssql+pyodbc") and not {"driver", "odbc_connect"} & {k.lower() for k in parsed.query}:
            return "mssql+pyodbc:///?odbc_connect=" + quote_plus(mssql_connection_string(url))
        return url

    def connector(self, target: str, timeout: Optional[int] = None) -> Callable[[], Any]:
        odbc = mssql_connection_string(target) if "://" in target else target

        def connect_mssql() -> Any:
            import pyodbc

            try:
                return pyodbc.connect(odbc, autocommit=True, **({"timeout": timeout} if timeout else {}))
            except pyodbc.Error as exc:  # the drivers report an unknown host as a server not answering
                exc.qgen_errno = unknown_host([odbc_server_host(odbc)])  # type: ignore[attr-defined]
                raise

        return connect_mssql

    def session_limits(self, statement_ms: int, lock_ms: int) -> list[str]:
        # SQL Server has no statement timeout of its own: the driver's query timeout bounds it (limit_session).
        return [f"SET LOCK_TIMEOUT {int(lock_ms)};"]

    def limit_session(self, connection: Any, statement_ms: int, lock_ms: int) -> None:
        super().limit_session(connection, statement_ms, lock_ms)
        connection.timeout = max(1, -(-int(statement_ms) // 1000))  # pyodbc's query timeout, whole seconds

    @contextlib.contextmanager
    def transaction(self, connection: Any) -> Iterator[None]:
        """An explicit transaction on the autocommit connection (see autocommit_calls)."""
        self.execute_batch(connection, "BEGIN TRANSACTION;")
        try:
            yield
        except BaseException:
            with contextlib.suppress(Exception):
                self.execute_batch(connection, "IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION;")
            raise
        self.execute_batch(connection, "COMMIT TRANSACTION;")

    def sends_table_valued_parameters(self, connection: Callable[[], Any]) -> bool:
        """What the ODBC driver can (qgen.dialects.mssql.odbc.ODBC_DRIVERS): asked once."""
        if self._tvp is None:
            import pyodbc

            self._tvp = odbc_driver(str(connection().getinfo(pyodbc.SQL_DRIVER_NAME))).sends_table_valued_parameters
        return self._tvp

    def batch_call(self, connection: Callable[[], Any], batch: Batch) -> tuple[str, list[tuple[str, Any]]]:
        def value(column: str, value: Any) -> Any:
            return self.value_in(batch.kinds.get(column), value)

        if self.batch_as_json(connection):
            # enqueue_json: the same jobs as one JSON document; a json column as its JSON text.
            array = self.json_jobs(batch.records, value)
            return "enqueue_json", [("jobs", json.dumps(array, default=json_default))]
        # A table-valued parameter: the type's name and schema first (pyodbc >= 4.0.32), then one
        # tuple per job in the type's column order: ordinal, job type, payload, priority, run_at.
        rows: list[Any] = list(batch.table_type)
        for ordinal, values, priority, run_at in batch.records:
            row = [ordinal] + [value(c, v) for c, v in values]
            if batch.priority:
                row.append(int(priority or 0))
            if batch.run_at:
                row.append(self.plain_in(run_at))
            rows.append(tuple(row))
        return "enqueue_batch", [("jobs", rows)]

    def run_worker(self, run: Callable[..., Any], params: Params) -> int:
        """The worker procedure reports the jobs it handled in a result set."""
        return int(run("worker", params, "rows")[0]["processed"])

    def codes(self, exc: BaseException) -> tuple[Optional[str], set[int]]:
        state = getattr(exc, "sqlstate", None)
        return (state, set()) if state is not None else pyodbc_codes(exc)
