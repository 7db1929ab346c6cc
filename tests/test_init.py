"""qgen used from a project of the user's own, as its wheel installs it: the wheel is built from this
checkout and unpacked into a folder that comes first on PYTHONPATH, and every command runs in a
temporary project folder outside the repository.

- The README's "Use it from your own project" runs as written, in the order shown: its shell block
  (qgen init, qgen revision, alembic upgrade head), then its Python block against the installed queue;
  then the teardown (alembic downgrade base) leaves nothing behind.
- `qgen init` overwrites nothing.
- An Alembic environment the user already has (made by `alembic init`, with a revision of its own)
  takes a qgen revision after its head, upgrades and downgrades.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import psycopg
import pytest

from tests.conftest import ROOT
from tests.support.pg import scratch_database
from tests.support.run import named
from tests.support.wheel import DISTRIBUTION, build_wheel, install_into_fresh_venv, wheel_metadata


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """qgen's wheel, built from this checkout: what `pip install qgen-queues` would install."""
    return build_wheel(tmp_path_factory.mktemp("wheel"))


def venv_with(wheel: Path, folder: Path) -> Path:
    """A fresh virtualenv with the wheel pip-installed (tests/support/wheel.py); its bin/ folder."""
    return install_into_fresh_venv(wheel, folder)


def test_the_wheel_carries_the_distribution_name_and_the_qgen_command(wheel, tmp_path):
    """`qgen` on PyPI is an unrelated project: the distribution is qgen-queues, its import name and
    command stay qgen."""
    metadata = wheel_metadata(wheel)
    assert metadata["Name"] == [DISTRIBUTION] == ["qgen-queues"]
    with zipfile.ZipFile(wheel) as archive:
        files = archive.namelist()
    assert not [f for f in files if "peers" in f or "pgqueuer" in f or "procrastinate" in f], \
        "the peers bench (PgQueuer, procrastinate) is bench tooling, not part of what users install"
    assert sorted(f.rsplit("/", 1)[1] for f in files if f.startswith("qgen/examples/")) == sorted(
        p.name for p in (ROOT / "examples").glob("*.yaml")), "the examples ship for qgen init/bench --example"
    assert "qgen/migrations/revision.py.mako" in files, "qgen revision writes a revision's module from it"
    dashboard = ROOT / "qgen" / "cli" / "dashboard"
    assert {f"qgen/cli/dashboard/{p.relative_to(dashboard).as_posix()}" for p in [*dashboard.glob("templates/*.html"), *dashboard.glob("static/*.*")]} <= set(files), \
        "qgen dashboard renders its pages from templates/ and serves static/ (package data)"
    assert any(extra == "postgres" for extra in metadata.get("Provides-Extra", []))
    assert "dashboard" in metadata.get("Provides-Extra", [])
    bin_ = venv_with(wheel, tmp_path / "venv")
    shown = subprocess.run([str(bin_ / "qgen"), "--version"], capture_output=True, text=True, cwd=tmp_path)
    assert shown.returncode == 0 and shown.stdout.startswith("qgen "), shown.stderr
    pip_show = subprocess.run([str(bin_ / "python"), "-c", "import importlib.metadata as m; print(m.version('qgen-queues'))"],
                              capture_output=True, text=True, cwd=tmp_path)
    assert pip_show.stdout.strip() == metadata["Version"][0], pip_show.stderr


def sh(script: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k not in ("QGEN_DATABASE_URL", "ALEMBIC_CONFIG")}
    return subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=cwd, env={**environment, **env},
                          capture_output=True, text=True, timeout=300)


def readme_blocks(section: str) -> list[tuple[str, str]]:
    """The fenced code blocks (language, text) of one README section, in order."""
    readme = (ROOT / "README.md").read_text()
    start = readme.index(f"\n## {section}\n")
    end = readme.index("\n## ", start + 1)
    return re.findall(r"```(\w+)\n(.*?)```", readme[start:end], re.S)


def test_the_readme_project_flow_runs_as_written_outside_the_repository(postgres_server, wheel, tmp_path):
    """In an empty folder: the README's first shell block (a fresh venv with the wheel pip-installed in
    it, qgen init, qgen revision, alembic upgrade head), its Python block, its second shell block
    (qgen status, qgen maintain, qgen bench --example), all with the installed wheel's qgen."""
    blocks = readme_blocks("Use it from your own project")
    (lang, shell), (lang2, python), (lang3, operate) = blocks[0], blocks[1], blocks[2]
    assert (lang, lang2, lang3) == ("sh", "python", "sh")
    readme_url = "postgresql://postgres@127.0.0.1:5432/mydb"
    assert readme_url in python and readme_url.replace("://", "+psycopg://") in shell and readme_url in operate
    install, = [line for line in shell.splitlines() if "pip install" in line]
    assert "[postgres]" in install and "'qgen-queues[postgres]'" in install, "the install line names this project"
    assert not list(tmp_path.iterdir()), "the flow starts in an empty folder"
    schema = named("app_queues")  # roles are named after it: this run's own
    with scratch_database("qgen_init") as url:
        script = []
        for line in shell.splitlines():
            if "pip install" in line:  # the installed wheel stands in for pip: .venv/bin/{qgen,alembic,python}
                # offline: the wheel pip-installs into a fresh .venv here, its dependencies seen from the test venv's
                script.append(f"PYTHONPATH={ROOT} {sys.executable} -c 'from pathlib import Path; from tests.support.wheel "
                              f"import install_into_fresh_venv as i; i(Path(\"{wheel}\"), Path(\".venv\").absolute())'")
                continue
            script.append(line.replace(readme_url.replace("://", "+psycopg://"), url.replace("://", "+psycopg://")))
            if "qgen init" in line:  # the user edits the spec before the first revision
                script.append(f"sed -i 's/^schema: app_queues$/schema: {schema}/' queues.yaml")
        done = sh("\n".join(script), tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
        project = tmp_path / "myapp"
        located = sh(".venv/bin/python -c 'import qgen; print(qgen.__file__)'", project)
        assert located.stdout.startswith(str(project / ".venv")), "the wheel's qgen ran, not the checkout's"
        assert sorted(p.name for p in project.iterdir()) == [".venv", "alembic.ini", "migrations", "queues.yaml"]
        assert len(list((project / "migrations" / "versions").glob("*.py"))) == 1

        (project / "example.py").write_text(python.replace(readme_url, url))
        ran = sh(".venv/bin/python example.py", project)
        assert ran.returncode == 0, ran.stderr
        assert ran.stdout.strip() == "96 sent by the worker"  # the number the README's comment gives
        with psycopg.connect(url) as conn:
            assert conn.execute(f'SELECT count(*) FROM "{schema}".emails').fetchone() == (0,)

        bench_schema = named("qgen_bench")
        operated = sh(operate.replace(readme_url, url).replace("--example", f"--schema {bench_schema} --example"), project)
        assert operated.returncode == 0, operated.stdout + operated.stderr
        assert f"{schema}.emails" in operated.stdout and "released 0 expired leases" in operated.stdout, operated.stdout
        assert "exactly once" in operated.stdout.lower() or "exactly-once" in operated.stdout.lower(), operated.stdout

        again = sh(".venv/bin/qgen init", project)
        assert again.returncode == 1 and "nothing written" in again.stderr
        assert "alembic.ini" in again.stderr and "queues.yaml" in again.stderr

        down = sh(".venv/bin/alembic downgrade base", project, QGEN_DATABASE_URL=url)
        assert down.returncode == 0, down.stderr
        with psycopg.connect(url) as conn:
            assert conn.execute("SELECT count(*) FROM pg_namespace WHERE nspname = %s", (schema,)).fetchone() == (0,)
            assert conn.execute("SELECT count(*) FROM pg_roles WHERE rolname LIKE %s",
                                (schema + "\\_%",)).fetchone() == (0,)
    assert not (ROOT / "alembic.ini").exists() and not (ROOT / "migrations").exists(), \
        "the checkout has no Alembic environment a README reader could write revisions into"


def test_init_writes_into_a_folder_and_overwrites_nothing(wheel, tmp_path):
    bin_ = venv_with(wheel, tmp_path / "venv")
    (tmp_path / "here").mkdir()
    (tmp_path / "here" / "queues.yaml").write_text("# mine\n")
    refused = sh(f"{bin_}/qgen init here", tmp_path)
    assert refused.returncode == 1 and "queues.yaml" in refused.stderr
    assert (tmp_path / "here" / "queues.yaml").read_text() == "# mine\n"
    assert sorted(p.name for p in (tmp_path / "here").iterdir()) == ["queues.yaml"], "nothing written"
    made = sh(f"{bin_}/qgen init here --no-spec", tmp_path)
    assert made.returncode == 0, made.stderr
    assert (tmp_path / "here" / "migrations" / "versions").is_dir()
    assert (tmp_path / "here" / "queues.yaml").read_text() == "# mine\n"
    fresh = sh(f"{bin_}/qgen init elsewhere/new", tmp_path)
    assert fresh.returncode == 0 and (tmp_path / "elsewhere" / "new" / "queues.yaml").is_file()
    checked = sh(f"{bin_}/qgen check elsewhere/new/queues.yaml", tmp_path)
    assert checked.returncode == 0, checked.stderr
    # the examples ship in the wheel: outside a checkout, init writes one by name
    example = sh(f"{bin_}/qgen init rain --example 004_rainfall", tmp_path)
    assert example.returncode == 0, example.stderr
    assert sorted(p.name for p in (tmp_path / "rain").iterdir()) == ["004_rainfall.yaml", "alembic.ini", "migrations"]
    assert (tmp_path / "rain" / "004_rainfall.yaml").read_text() == (ROOT / "examples" / "004_rainfall.yaml").read_text()
    assert "qgen revision 004_rainfall.yaml" in example.stdout
    unknown = sh(f"{bin_}/qgen init other --example nope", tmp_path)
    assert unknown.returncode == 2 and "no example 'nope'; accepted: 000_flag_worker, 001_watermark" in unknown.stderr
    assert not (tmp_path / "other").exists()
    neither = sh(f"{bin_}/qgen bench --url postgresql://postgres@127.0.0.1:1/x", tmp_path)
    assert neither.returncode == 1 and "SPEC (a file) or --example NAME" in neither.stderr


def test_qgen_revisions_join_an_alembic_environment_the_user_already_has(postgres_server, wheel, tmp_path):
    bin_ = venv_with(wheel, tmp_path / "venv")
    project = tmp_path / "theirs"
    project.mkdir()
    schema = named("their_queues")
    (project / "queue.yaml").write_text(f"schema: {schema}\nqueues:\n  jobs:\n    payload:\n      n: bigint\n")
    with scratch_database("qgen_theirs") as url:
        made = sh(f"{bin_}/alembic init migrations && {bin_}/alembic revision -m 'their users table'", project)
        assert made.returncode == 0, made.stderr
        ini = project / "alembic.ini"
        ini.write_text(re.sub(r"^sqlalchemy\.url = .*$", "sqlalchemy.url = " + url.replace("://", "+psycopg://"),
                              ini.read_text(), flags=re.M))
        theirs, = (project / "migrations" / "versions").glob("*.py")
        theirs.write_text(theirs.read_text().replace(
            '    """Upgrade schema."""\n    pass',
            '    """Upgrade schema."""\n    op.create_table("users", sa.Column("id", sa.Integer, primary_key=True))').replace(
            '    """Downgrade schema."""\n    pass', '    """Downgrade schema."""\n    op.drop_table("users")'))
        ours = sh(f"{bin_}/qgen revision queue.yaml -m 'the job queue' -c alembic.ini", project)
        assert ours.returncode == 0, ours.stderr
        assert "first revision of this schema" in ours.stdout
        up = sh(f"{bin_}/alembic upgrade head", project)
        assert up.returncode == 0, up.stderr
        history = sh(f"{bin_}/alembic history", project).stdout
        assert re.search(r"-> \w+ \(head\), the job queue", history) and "<base> -> " in history
        with psycopg.connect(url, autocommit=True) as conn:
            assert conn.execute("SELECT to_regclass('public.users') IS NOT NULL").fetchone() == (True,)
            assert conn.execute(f'SELECT * FROM "{schema}".jobs_enqueue(7)').fetchone() == (1, True)
        back = sh(f"{bin_}/alembic downgrade -1", project)
        assert back.returncode == 0, back.stderr
        with psycopg.connect(url) as conn:
            assert conn.execute("SELECT count(*) FROM pg_namespace WHERE nspname = %s", (schema,)).fetchone() == (0,)
            assert conn.execute("SELECT to_regclass('public.users') IS NOT NULL").fetchone() == (True,)


def test_alembic_upgrade_against_a_missing_database_says_so_in_one_message(postgres_server, wheel, tmp_path):
    """A first `alembic upgrade head` with a URL naming a database not created yet: two lines (the URL
    with its password hidden, the server's answer, what to do), not Alembic's and SQLAlchemy's
    117-line traceback."""
    bin_ = venv_with(wheel, tmp_path / "venv")
    made = sh(f"{bin_}/qgen init && {bin_}/qgen revision queues.yaml -m 'install the queues'", tmp_path)
    assert made.returncode == 0, made.stderr
    missing = named("qgen_missing_db")
    up = sh(f"{bin_}/alembic upgrade head", tmp_path,
            QGEN_DATABASE_URL=f"postgresql+psycopg://postgres:secret@127.0.0.1:5432/{missing}")
    assert up.returncode == 1
    assert "Traceback" not in up.stderr and len(up.stderr.strip().splitlines()) <= 4, up.stderr
    assert f'database "{missing}" does not exist' in up.stderr and "create the database first" in up.stderr
    assert "secret" not in up.stderr
