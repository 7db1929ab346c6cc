"""No message qgen prints names a password, whatever form the URL takes and wherever it is shown.

Every form of URL qgen takes (SQLAlchemy URLs, a password in the query, a libpq DSN quoted or bare, an
ODBC connection string bare or {braced}, one inside odbc_connect=, a password with an unescaped @ or a
bad %-escape) meets every place that prints one: the one redaction function, a command's --url (qgen
status) and its connection (qgen.cli.dburl), Alembic's env.py, the bench. The servers named do not
answer (port 1), so each place takes its error path, where a URL is printed."""

from __future__ import annotations

import argparse
from pathlib import Path
from urllib.parse import quote_plus

import pytest
from alembic import command
from alembic.config import Config

from qgen.bench.database import BenchDatabase, BenchError
from qgen.cli import dburl
from qgen.cli import main as qgen_main
from qgen.dialects.urls import redacted
from tests.conftest import ROOT

ODBC = "DRIVER={ODBC Driver 18 for SQL Server};SERVER=127.0.0.1,1;DATABASE=app;UID=app;PWD=%s;Encrypt=no"

# (form, the secret in it: no part of it may be shown)
FORMS = {
    "url": ("postgresql://app:Sekrit-9@127.0.0.1:1/app", "Sekrit-9"),
    "url-psycopg": ("postgresql+psycopg://app:Sekrit-9@127.0.0.1:1/app", "Sekrit-9"),
    "url-unescaped-at": ("postgresql://app:Sek@rit-9@127.0.0.1:1/app", "rit-9"),
    "url-bad-escape": ("postgresql://app:Sekrit%zz9@127.0.0.1:1/app", "Sekrit"),
    "url-query-password": ("postgresql://app@127.0.0.1:1/app?password=Sekrit-9&sslmode=disable", "Sekrit-9"),
    "dsn": ("host=127.0.0.1 port=1 dbname=app user=app password=Sekrit-9", "Sekrit-9"),
    "dsn-quoted": ("host=127.0.0.1 port=1 dbname=app user=app password='Sekrit 9'", "Sekrit"),
    "mssql-url": ("mssql+pyodbc://app:Sekrit-9@127.0.0.1:1/app?Encrypt=no", "Sekrit-9"),
    "mssql-url-query-pwd": ("mssql+pyodbc://app@127.0.0.1:1/app?Encrypt=no&PWD=Sekrit-9", "Sekrit-9"),
    "odbc": (ODBC % "Sekrit-9", "Sekrit-9"),
    "odbc-braced": (ODBC % "{Sek;rit-9}", "rit-9"),
    "odbc-connect": ("mssql+pyodbc:///?odbc_connect=" + quote_plus(ODBC % "Sekrit-9"), "Sekrit-9"),
    # libpq's sslpassword: the passphrase of the client's SSL key
    "dsn-sslpassword": ("host=127.0.0.1 port=1 dbname=app user=app sslpassword=Sekrit-9", "Sekrit-9"),
    "url-query-sslpassword": ("postgresql://app@127.0.0.1:1/app?sslpassword=Sekrit-9&sslmode=disable", "Sekrit-9"),
    # libpq quotes a token it cannot read: a bad escape in ?password=, the part of an unquoted DSN
    # password after its space
    "url-query-bad-escape": ("postgresql://app@127.0.0.1:1/app?password=Sekrit%zz9", "Sekrit"),
    "dsn-unquoted-space": ("host=127.0.0.1 port=1 dbname=app user=app password=Sekrit xylo9", "xylo9"),
    # pasted with a blank before it; a query key %-encoded (the driver decodes it)
    "url-leading-blank": (" postgresql://app:Sekrit-9@127.0.0.1:1/app", "Sekrit-9"),
    "url-encoded-key": ("postgresql://app@127.0.0.1:1/app?pass%77ord=Sekrit-9", "Sekrit-9"),
}
IDS = sorted(FORMS)
# Forms refused before any driver sees them (a driver's own message would show part of the password),
# with the escape that fixes them.
MALFORMED = {"url-unescaped-at": "%40", "url-bad-escape": "%25", "url-query-bad-escape": "%25",
             "dsn-unquoted-space": "single quotes"}
POSTGRES = [name for name in IDS if not name.startswith(("mssql", "odbc"))]
SPEC = ROOT / "examples" / "000_flag_worker.yaml"


def hidden(text: str, secret: str) -> bool:
    return secret not in text and quote_plus(secret) not in text


def says_why(form: str, message: str, failed: str) -> bool:
    """A malformed URL is refused naming its fix; any other fails at the connection."""
    return "accepted: " in message and MALFORMED[form] in message if form in MALFORMED \
        else failed in message


@pytest.mark.parametrize("form", IDS)
def test_the_redaction_function(form):
    url, secret = FORMS[form]
    shown = redacted(url)
    assert hidden(shown, secret), shown
    assert "***" in shown, "the reader sees that a password was there"
    assert "127.0.0.1" in shown, "and still where the database is"


@pytest.mark.parametrize("form", IDS)
def test_a_command_that_cannot_connect(form, capsys):
    url, secret = FORMS[form]
    with pytest.raises(dburl.DatabaseUnavailable) as refused:
        dburl.connect(url)
    assert hidden(str(refused.value), secret), str(refused.value)
    assert says_why(form, str(refused.value), "cannot connect to "), str(refused.value)
    code = qgen_main(["status", str(SPEC), "--url", url])
    out = capsys.readouterr()
    assert code != 0
    assert hidden(out.out + out.err, secret), out.out + out.err


@pytest.mark.parametrize("form", IDS)
def test_alembic_env_py_that_cannot_connect(form, tmp_path):
    url, secret = FORMS[form]
    assert qgen_main(["init", str(tmp_path / "project"), "--no-spec"]) == 0
    config = Config(str(tmp_path / "project" / "alembic.ini"), cmd_opts=argparse.Namespace(x=[f"url={url}"]))
    config.attributes["configure_logger"] = False
    (Path(tmp_path) / "project" / "migrations" / "versions" / "0001_probe.py").write_text(
        'revision = "0001probe"\ndown_revision = None\n\ndef upgrade():\n    pass\n', encoding="utf-8")
    with pytest.raises(SystemExit) as ended:
        command.upgrade(config, "head")
    message = str(ended.value)
    assert says_why(form, message, "cannot connect to"), message
    assert hidden(message, secret), message


@pytest.mark.parametrize("form", POSTGRES)
def test_the_bench_that_cannot_connect(form):
    url, secret = FORMS[form]
    with pytest.raises(BenchError) as refused:
        BenchDatabase(url).connect()
    assert hidden(str(refused.value), secret), str(refused.value)
