"""Every migrations/env.py that `qgen init` has written still runs with this qgen: a user's project keeps
the env.py it was given (qgen init never overwrites it), so each import it makes and each qgen function it
calls must still be there. tests/fixtures/env_py/ holds each version qgen shipped before the current one,
byte for byte (named by the commit that wrote it); the current one comes from the package. Each is put
into a project `qgen init` writes, with a revision of the test's own (a table made, then dropped), and:
- upgrades and downgrades a PostgreSQL database, online;
- prints the SQL Server and PostgreSQL scripts offline (alembic upgrade --sql), which runs env.py's URL
  handling for each database without a server;
and the current one takes every form of URL qgen's own commands take (a libpq DSN, an ODBC connection
string), not only SQLAlchemy's."""

from __future__ import annotations

import argparse
import io
import shutil
from pathlib import Path

import psycopg
import pytest
from alembic import command
from alembic.config import Config

from qgen.cli import main as qgen_main
from tests.conftest import ROOT
from tests.support.pg import scratch_database

EARLIER = sorted((ROOT / "tests" / "fixtures" / "env_py").glob("v*.py"))
CURRENT = ROOT / "qgen" / "project" / "migrations" / "env.py"
VERSIONS = [*EARLIER, CURRENT]
IDS = [path.stem for path in EARLIER] + ["current"]

PROBE = '''"""a table of the test's own"""
from alembic import op

revision = "0001probe"
down_revision = None
branch_labels = None
depends_on = None


def upgrade():
    op.execute("CREATE TABLE env_py_probe (id int)")


def downgrade():
    op.execute("DROP TABLE env_py_probe")
'''


def project_with(env_py: Path, root: Path) -> Path:
    """A project as `qgen init` writes it, its env.py replaced by this version; its alembic.ini."""
    assert qgen_main(["init", str(root), "--no-spec"]) == 0
    shutil.copyfile(env_py, root / "migrations" / "env.py")
    (root / "migrations" / "versions" / "0001_probe.py").write_text(PROBE, encoding="utf-8")
    return root / "alembic.ini"


def config_for(ini: Path, url: str, out: io.StringIO | None = None) -> Config:
    config = Config(str(ini), cmd_opts=argparse.Namespace(x=[f"url={url}"]), output_buffer=out)
    config.attributes["configure_logger"] = False
    return config


def has_probe(url: str) -> bool:
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT to_regclass('public.env_py_probe') IS NOT NULL").fetchone()[0]


def test_the_fixtures_are_every_earlier_version_and_none_is_the_current():
    texts = [path.read_text(encoding="utf-8") for path in EARLIER]
    assert len(set(texts)) == len(texts) >= 5
    assert CURRENT.read_text(encoding="utf-8") not in texts, "the current env.py is tested from the package"


@pytest.mark.parametrize("env_py", VERSIONS, ids=IDS)
def test_an_env_py_qgen_init_wrote_upgrades_and_downgrades_postgres(env_py, postgres_server, tmp_path):
    ini = project_with(env_py, tmp_path / "project")
    with scratch_database("qgen_env_py") as url:
        config = config_for(ini, url)
        command.upgrade(config, "head")
        assert has_probe(url)
        command.downgrade(config, "base")
        assert not has_probe(url)


OFFLINE = {
    "postgres": "postgresql://app:Sekrit-9@db.example:5432/app",
    "mssql": "mssql+pyodbc://app:Sekrit-9@db.example:1433/app",
}


@pytest.mark.parametrize("database", sorted(OFFLINE))
@pytest.mark.parametrize("env_py", VERSIONS, ids=IDS)
def test_an_env_py_qgen_init_wrote_prints_the_script_offline(env_py, database, tmp_path):
    ini = project_with(env_py, tmp_path / "project")
    out = io.StringIO()
    command.upgrade(config_for(ini, OFFLINE[database], out), "head", sql=True)
    assert "CREATE TABLE env_py_probe (id int)" in out.getvalue()


def libpq_dsn(url: str) -> str:
    from psycopg.conninfo import conninfo_to_dict

    return " ".join(f"{key}={value}" for key, value in conninfo_to_dict(url).items())


def test_the_current_env_py_takes_a_libpq_dsn(postgres_server, tmp_path):
    ini = project_with(CURRENT, tmp_path / "project")
    with scratch_database("qgen_env_py") as url:
        config = config_for(ini, libpq_dsn(url))
        command.upgrade(config, "head")
        assert has_probe(url)
        command.downgrade(config, "base")


def test_the_current_env_py_takes_an_odbc_connection_string_offline(tmp_path):
    ini = project_with(CURRENT, tmp_path / "project")
    out = io.StringIO()
    odbc = "DRIVER={ODBC Driver 18 for SQL Server};SERVER=db.example,1433;DATABASE=app;UID=app;PWD=Sekrit-9"
    command.upgrade(config_for(ini, odbc, out), "head", sql=True)
    assert "CREATE TABLE env_py_probe (id int)" in out.getvalue()
    assert "Sekrit-9" not in out.getvalue()
