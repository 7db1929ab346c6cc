"""Review 2 (defects, not fixes): URL forms whose password qgen still prints.

- A URL with leading whitespace (an env var or --url written ' postgresql://...', a secret file with a
  leading blank): database_of strips it and takes it as PostgreSQL, but redacted() anchors its
  user:password@ match at the first character, so 'cannot connect to <url>' of every command (qgen status,
  qgen worker's 'not started', the dashboard's banner, Alembic's env.py) shows the password.
- A URL query key that is %-encoded (libpq and SQLAlchemy decode keys: ?pass%77ord= IS password=):
  redacted() compares the raw key, so the password is shown."""

from __future__ import annotations

import pytest

from qgen.cli import dburl
from qgen.cli import main as qgen_main
from qgen.dialects.urls import redacted
from tests.conftest import ROOT

SPEC = ROOT / "examples" / "000_flag_worker.yaml"
SECRET = "Sekrit-9x"
FORMS = {
    "leading-space": f" postgresql://app:{SECRET}@127.0.0.1:1/app",
    "leading-tab": f"\tpostgresql://app:{SECRET}@127.0.0.1:1/app",
    "leading-newline": f"\npostgresql://app:{SECRET}@127.0.0.1:1/app",
    "query-key-escaped": f"postgresql://app@127.0.0.1:1/app?pass%77ord={SECRET}",
    "mssql-query-key-escaped": f"mssql+pyodbc://app@127.0.0.1:1/app?Encrypt=no&pw%64={SECRET}",
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_redaction_hides_the_password(form):
    assert SECRET not in redacted(FORMS[form]), redacted(FORMS[form])


@pytest.mark.parametrize("form", ["leading-space", "leading-tab", "leading-newline", "query-key-escaped"])
def test_qgen_status_that_cannot_connect_hides_the_password(form, capsys):
    url = FORMS[form]
    with pytest.raises(dburl.DatabaseUnavailable) as refused:
        dburl.connect(url)
    assert SECRET not in str(refused.value), str(refused.value)
    assert qgen_main(["status", str(SPEC), "--url", url]) != 0
    out = capsys.readouterr()
    assert SECRET not in out.out + out.err, out.out + out.err
