"""SQL Server's client driver (pyodbc): procedures called with EXEC and named parameters (@name = ?),
several result sets per call, an autocommit connection with explicit transactions, naive UTC
datetimes, JSON as text, enqueue_many's jobs as a table-valued parameter or one JSON document, and
SQL Server error numbers read from pyodbc's diagnostic records."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import re
from typing import Any, Callable, Iterator, Optional

from qgen.dialects.client_base import Batch, ClientDriver, Params, json_default, register_client, unknown_host, utc
from qgen.dialects.error_codes import (
    CONNECTION, CONNECTION_CONFIG, DEADLOCK, LOCK_TIMEOUT, DENIED, DUPLICATE, INSTALL_REFUSED, INVALID, LEASE_LOST, MAINTAIN_FAILED, MISSING,
    NOT_VERIFIED, PAST_LIMIT, REFUSED, UNINSTALL_REFUSED, UNKNOWN_HOST, ErrorCode, ErrorTable,
)
from qgen.dialects.mssql import microsoft_odbc_path, odbc_driver


def _lost(about: str) -> ErrorCode:
    return ErrorCode("connection", CONNECTION.raises, about)


ERRORS = ErrorTable(
    {
        50000: UNINSTALL_REFUSED,  # RAISERROR with a message (uninstall's guard)
        50001: LEASE_LOST,
        50002: DUPLICATE,
        50003: INVALID,
        50004: ErrorCode("refused", REFUSED.raises, "qgen: purge inside the caller's transaction or implicit transactions"),
        50005: REFUSED,
        50010: PAST_LIMIT,
        8152: ErrorCode("invalid", INVALID.raises, "string or binary data would be truncated (an insert past a column's length)"),
        2628: ErrorCode("invalid", INVALID.raises, "string or binary data would be truncated in a named column"),
        8115: ErrorCode("invalid", INVALID.raises, "arithmetic overflow converting a value to a parameter's or column's type "
                        "(a bigint past its range; a decimal with more digits before the point than its parameter holds)"),
        50020: NOT_VERIFIED,
        50022: ErrorCode("install_refused", INSTALL_REFUSED.raises,
                         "qgen install refused: the schema's owner is not a user (maintain's EXECUTE AS OWNER cannot impersonate it)"),
        50024: ErrorCode("uninstall_refused", UNINSTALL_REFUSED.raises,
                         "qgen uninstall refused, before dropping anything: objects that are not qgen's use qgen's objects"),
        50030: MAINTAIN_FAILED,
        50031: ErrorCode("install_refused", INSTALL_REFUSED.raises,
                         "schedule.sql refused, before the job is made: the Agent operator it names does not exist"),
        2601: ErrorCode("duplicate", DUPLICATE.raises, "duplicate key row in a unique index"),
        2627: ErrorCode("duplicate", DUPLICATE.raises, "violation of a PRIMARY KEY or UNIQUE constraint"),
        229: ErrorCode("denied", DENIED.raises, "permission denied on an object"),
        230: ErrorCode("denied", DENIED.raises, "permission denied on a column"),
        2812: ErrorCode("missing", MISSING.raises, "could not find stored procedure"),
        2715: ErrorCode("missing", MISSING.raises, "no such type (the batch table type)"),
        8144: ErrorCode("missing", MISSING.raises, "too many arguments: an older install"),
        8145: ErrorCode("missing", MISSING.raises, "no such parameter: an older install"),
        1222: ErrorCode("lock_timeout", LOCK_TIMEOUT.raises, "lock request time out period exceeded (SET LOCK_TIMEOUT)"),
        1205: ErrorCode("deadlock", None, "chosen as the deadlock victim: retried"),
        "40001": DEADLOCK,  # the SQLSTATE a deadlock victim's record carries
        # Refused at connect time (ConnectionConfigError, not retried; the driver's record of SQLSTATE
        # class 08 that comes with them is weaker).
        911: ErrorCode("connection_config", CONNECTION_CONFIG.raises, "the database does not exist"),
        4060: ErrorCode("connection_config", CONNECTION_CONFIG.raises, "cannot open the database the login names"),
        18456: ErrorCode("connection_config", CONNECTION_CONFIG.raises, "login failed (user or password)"),
        **UNKNOWN_HOST,  # FreeTDS says 20009 for it as for a server that does not answer: looked up again
        233: _lost("no process on the other end of the pipe"),
        10053: _lost("the connection was aborted by the host"),
        10054: _lost("the connection was reset by the peer"),
        40613: _lost("Azure SQL Database: the database is unavailable"),
        40197: _lost("Azure SQL Database: the service failed processing the request"),
        40501: _lost("Azure SQL Database: the service is busy"),
    },
    classes={"08": _lost("connection exception (SQLSTATE class 08; FreeTDS reports a dropped socket as 08S01)")},
)

# pyodbc writes a driver error's diagnostic records into its message as "[SQLSTATE] text (native
# error) (ODBC function)" for the first record, then "; [SQLSTATE] text (native error)" for each
# further one (pyodbc's errors.cpp; FreeTDS's text starts "[FreeTDS][SQL Server]", and its native
# error is the server's error number). The text is the server's and may say anything: a value it
# quotes (a dedupe key in error 2601, a handler's own message) can hold "(50001); [42000] " or a
# whole first-record trailer. So only what no text can move is read: the message's end, which is
# the last record's trailer (" (native) (function)" when there is one record: then that is all),
# and the first record's trailer when it is the only place in the message shaped like one. A middle
# record's bounds cannot be told from its text: its number is not read.
_PYODBC_START = re.compile(r"\[[0-9A-Z]{5}\] ")
_PYODBC_ONE_RECORD = re.compile(r" \((-?[0-9]+)\) \(SQL\w+\)\Z")
_PYODBC_LAST = re.compile(r" \((-?[0-9]+)\)\Z")
_PYODBC_FIRST_TRAILER = re.compile(r" \((-?[0-9]+)\) \(SQL\w+\)(?=; \[[0-9A-Z]{5}\] )")


def pyodbc_codes(exc: BaseException) -> tuple[Optional[str], set[int]]:
    """(SQLSTATE, SQL Server native error numbers) of a pyodbc error: the first record's SQLSTATE
    (pyodbc's args[0]) and the numbers of the records whose bounds no server text can forge."""
    args: tuple = getattr(exc, "args", ())
    state = args[0] if args and isinstance(args[0], str) and len(args[0]) == 5 else None
    text = args[1] if len(args) > 1 and isinstance(args[1], str) else ""
    if not _PYODBC_START.match(text):
        return state, set()
    one = _PYODBC_ONE_RECORD.search(text)
    if one is not None:  # a further record ends in a number, never in the function's name
        return state, {int(one.group(1))}
    last = _PYODBC_LAST.search(text)
    first = _PYODBC_FIRST_TRAILER.findall(text)
    numbers = {int(last.group(1))} if last is not None else set()
    if last is not None and len(first) == 1:
        numbers.add(int(first[0]))
    return state, numbers


@register_client
class SqlServerClient(ClientDriver):
    name = "mssql"
    driver_module = "pyodbc"
    errors = ERRORS
    # The procedures manage their own transactions (BEGIN/COMMIT, and ROLLBACK + THROW on error).
    # Under ODBC's implicit transactions (autocommit off) their first SELECT would open an outer
    # transaction they do not commit (error 266), so calls run in autocommit mode and transaction()
    # opens an explicit one.
    autocommit_calls = True
    has_enqueue_json = True
    reads_every_result_set = True

    def __init__(self, batch_via: str = "auto"):
        super().__init__(batch_via)
        self._tvp: Optional[bool] = None  # the connection's driver sends table-valued parameters

    def quote(self, name: str) -> str:
        return "[" + name.replace("]", "]]") + "]"

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

    json_comes_parsed = False  # nvarchar JSON: json_out parses it

    def json_out(self, value: Any) -> Any:
        return json.loads(value) if isinstance(value, (str, bytes)) else value

    def sqlalchemy_url(self, url: str) -> str:
        """A SQL Server URL without driver= gets the driver qgen's own commands take (Microsoft's ODBC
        Driver 18, loaded by path, else FreeTDS): SQLAlchemy alone would ask the ODBC manager for a
        driver by name and fail with IM002."""
        from urllib.parse import quote_plus

        from sqlalchemy import make_url

        parsed = make_url(url)
        if parsed.drivername in ("mssql", "mssql+pyodbc") and not {"driver", "odbc_connect"} & {k.lower() for k in parsed.query}:
            return "mssql+pyodbc:///?odbc_connect=" + quote_plus(mssql_connection_string(url))
        return url

    def connector(self, target: str) -> Callable[[], Any]:
        odbc = mssql_connection_string(target) if "://" in target else target

        def connect_mssql() -> Any:
            import pyodbc

            try:
                return pyodbc.connect(odbc, autocommit=True)
            except pyodbc.Error as exc:  # the drivers report an unknown host as a server not answering
                exc.qgen_errno = unknown_host([odbc_server_host(odbc)])  # type: ignore[attr-defined]
                raise

        return connect_mssql

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
        """What the ODBC driver can (qgen.dialects.mssql.ODBC_DRIVERS): asked once."""
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
