"""Scratch PostgreSQL databases for the smoke tests: one per spec, installed from the rendered script.
The database and the spec's roles carry this run's token (tests/support/run.py): another run of the
suite on the same server has its own."""

import os
import subprocess

import psycopg
import pytest

from qgen.render.engine import render_spec
from qgen.spec.model import role_name
from qgen.spec.load import load_spec
from tests.conftest import ROOT
from tests.support.run import named, run_spec

DSN = os.environ.get("QGEN_PG_DSN", "host=127.0.0.1 port=5432 user=postgres")


def _admin():
    return psycopg.connect(DSN + " dbname=postgres", autocommit=True)


class Installed:
    def __init__(self, spec_name: str):
        # A case of tests/cases/ (its folder's name), or a path relative to the repository (the examples).
        if "/" in spec_name:
            path = ROOT / spec_name
            self.spec_name = path.stem
        else:
            path = ROOT / "tests" / "cases" / spec_name / "spec.yaml"
            self.spec_name = spec_name
        self.db = named(f"qgen_pgsmoke_t_{self.spec_name.lower()}")
        self.spec = run_spec(load_spec(path))
        self.rendering = render_spec(self.spec, path.name, "postgres")
        self.dsn = f"{DSN} dbname={self.db}"

    def role(self, kind: str) -> str:
        """The name of the spec's producer, consumer or admin role in this run."""
        return role_name(self.spec, kind)

    def connect(self, **kwargs) -> psycopg.Connection:
        kwargs.setdefault("autocommit", True)
        return psycopg.connect(self.dsn, **kwargs)

    def run_script(self, text: str) -> None:
        subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", self.dsn],
                       input=text, text=True, check=True, capture_output=True,
                       env={**os.environ, "PGOPTIONS": "-c client_min_messages=warning"})


@pytest.fixture(scope="module")
def installed(request):
    spec_name = request.module.SPEC
    inst = Installed(spec_name)
    with _admin() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{inst.db}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{inst.db}"')
    before = getattr(request.module, "BEFORE_INSTALL", None)
    if before:
        inst.run_script(before)
    inst.run_script(inst.rendering.install)
    yield inst
    # Roles belong to the cluster: uninstall drops them (and the jobs the tests left: forced), the
    # database goes afterwards.
    inst.run_script(inst.rendering.force_uninstall + inst.rendering.uninstall)
    with _admin() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{inst.db}" WITH (FORCE)')


@pytest.fixture
def db(installed):
    with installed.connect() as conn:
        yield conn
