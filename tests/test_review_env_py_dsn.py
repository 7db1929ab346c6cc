"""Review (DBA): the env.py files earlier `qgen init` runs wrote (kept in users' projects; tests/fixtures/env_py)
print `engine.url.render_as_string(hide_password=True)` when they cannot connect. This change makes
sqlalchemy_url turn a libpq DSN into postgresql+psycopg:///?...&password=SECRET: SQLAlchemy hides a URL's
password, not a query key, so those env.py files now print a DSN's password (before, the DSN was refused
before any connection, with no password shown)."""

from __future__ import annotations

import pytest
from alembic import command

from tests.test_env_py_versions import EARLIER, config_for, project_with

DSN = "host=127.0.0.1 port=1 dbname=app user=app password=Sekrit-9"


@pytest.mark.parametrize("env_py", [p for p in EARLIER if p.stem.startswith(("v4", "v5"))], ids=lambda p: p.stem)
def test_an_earlier_env_py_does_not_print_a_dsn_password(env_py, tmp_path):
    ini = project_with(env_py, tmp_path / "project")
    try:
        command.upgrade(config_for(ini, DSN), "head")
    except SystemExit as ended:
        message = str(ended)
    except Exception as exc:  # noqa: BLE001 - any other way of refusing, as long as the password is not in it
        message = str(exc)
    else:
        pytest.fail("a server on port 1 answered")
    assert "Sekrit-9" not in message, message


ODBC_BRACED = "DRIVER={FreeTDS};SERVER=127.0.0.1;PORT=1;UID=app;PWD={Sek;rit-9};TDS_Version=7.4"


@pytest.mark.parametrize("env_py", [p for p in EARLIER if p.stem.startswith(("v4", "v5"))], ids=lambda p: p.stem)
def test_an_earlier_env_py_does_not_print_a_braced_odbc_password(env_py, tmp_path):
    """The same with an ODBC connection string, now wrapped into odbc_connect=: those env.py files hide
    PWD%3D up to the next %3B, so a {braced} password holding ; shows its tail."""
    ini = project_with(env_py, tmp_path / "project")
    try:
        command.upgrade(config_for(ini, ODBC_BRACED), "head")
    except SystemExit as ended:
        message = str(ended)
    except Exception as exc:  # noqa: BLE001
        message = str(exc)
    else:
        pytest.fail("a server on port 1 answered")
    assert "rit-9" not in message, message
