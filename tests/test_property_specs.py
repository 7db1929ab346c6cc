"""Every spec is either refused at `qgen check` with a located error, or installs.
Specs are drawn from the spec's JSON Schema with hostile leaves
(tests/support/spec_strategies.py): SQL reserved words, the procedures' internal names, qgen's own
columns, mixed case, names at and past the length limits, reserved schemas and roles, numbers at and
past their bounds. Each one is either

- refused: every error is `spec.yaml:LINE:COL: field.path: message`, inside the file, no traceback;
- or accepted: for PostgreSQL its install.sql runs twice and its uninstall.sql once on a live server,
  leaving nothing of it behind; for SQL Server its scripts pass the T-SQL gate: Microsoft's parser
  and qgen's own rules on every install.sql and uninstall.sql (one mono process for all of them),
  sqlfluff on every object (sqlfluff takes seconds per script: each object's shape, its bracketed
  names, spec-named parameters and string contents made uniform, is parsed once).

The run is reproducible (derandomize=True): QGEN_PROPERTY_EXAMPLES sets how many specs (default 40,
about a minute here); set it higher for a deeper search.
"""

from __future__ import annotations

import os
import re

import psycopg
import yaml
from hypothesis import HealthCheck, Phase, given, settings

from qgen.render.engine import render_spec
from qgen.spec.model import role_name
from qgen.spec.load import SpecInvalid, load_spec_text
from tests.conftest import require
from tests.support.pg import run_script, scratch_database
from tests.support.run import TOKEN, named
from tests.support.spec_strategies import specs
from tools.tsql_gate.gate import ParserUnavailable, ensure_parser, own_findings, sqlfluff_findings, sqlparser_findings

EXAMPLES = int(os.environ.get("QGEN_PROPERTY_EXAMPLES", "40"))
LOCATED = re.compile(r"spec\.yaml:([0-9]+):([0-9]+): (\S[^:]*|\S.*?): (.+)", re.S)


def with_run_roles(spec, number: int):
    """The spec with roles of this run's own: each name the spec gives them (mixed case, reserved
    words: what is tested) with the run's token, or p<number>_<role>_<token> where that would pass
    63 bytes. Roles belong to the whole cluster, which other runs share (and this derandomized test
    draws the same specs in every run)."""
    roles = ("producer", "consumer", "admin", "owner")

    def own(role: str) -> str:
        name = named(role_name(spec, role))
        return name if len(name.encode()) <= 63 else named(f"p{number}_{role}")

    grants = spec.grants.model_copy(update={r: own(r) for r in roles})
    return spec.model_copy(update={"grants": grants})


def run_roles(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        return {name for name, in conn.execute("SELECT rolname FROM pg_roles WHERE rolname LIKE %s", (f"%{TOKEN}",))}


def held_by(url: str, schema: str) -> int:
    with psycopg.connect(url) as conn:
        return conn.execute(
            "SELECT (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s)"
            " + (SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = %s)",
            (schema, schema)).fetchone()[0]


def install_cycle(url: str, spec, text: str) -> None:
    rendering = render_spec(spec, "spec.yaml", "postgres")
    try:
        run_script(url, rendering.install)
        run_script(url, rendering.install)
        run_script(url, rendering.uninstall)
    except psycopg.Error as exc:
        raise AssertionError(f"PostgreSQL refused the rendered SQL: {exc}\n--- spec.yaml ---\n{text}") from None
    assert held_by(url, spec.schema) == 0, f"uninstall left objects in {spec.schema}\n--- spec.yaml ---\n{text}"


def shape(sql: str) -> str:
    """What sqlfluff parses the same way: bracketed names, spec-named @parameters and string contents
    made uniform (qgen's own @q$ variables and @@functions are kept)."""
    sql = re.sub(r"N'(?:[^']|'')*'", "N'x'", sql)
    sql = re.sub(r"\[(?:[^\]]|\]\])*\]", "[x]", sql)
    return re.sub(r"(?<![@\w$])@[A-Za-z_][A-Za-z0-9_]*(?![\w$])", "@x", sql)


def tsql_gate(scripts: dict[str, str], objects: dict[str, str]) -> list[str]:
    # The parser knows SQL Server 2017; the one 2019 option qgen emits (sqlserver_version: 2019+) is all it may reject.
    problems = [str(f) for found in sqlparser_findings(scripts).values() for f in found
                if "OPTIMIZE_FOR_SEQUENTIAL_KEY" not in f.message]
    problems += [str(f) for name, text in scripts.items() for f in own_findings(text, name)]
    problems += [str(f) for name, text in objects.items() for f in sqlfluff_findings(text, name)]
    return problems


def test_every_spec_is_refused_where_it_is_wrong_or_installs(postgres_server):
    try:
        ensure_parser()
    except ParserUnavailable as exc:
        require(f"Microsoft T-SQL parser unavailable (tools/tsql_parser/build.sh): {exc}")
    accepted: dict[str, str] = {}
    scripts: dict[str, str] = {}
    objects: dict[str, str] = {}  # one object of each shape, for sqlfluff
    counts = {"refused": 0, "accepted": 0}

    with scratch_database("qgen_property") as url:
        roles_before = run_roles(url)

        @settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
                  phases=[Phase.explicit, Phase.generate, Phase.shrink], suppress_health_check=list(HealthCheck))
        @given(specs())
        def one_spec(data):
            text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
            try:
                spec = load_spec_text(text, "spec.yaml")
            except SpecInvalid as refused:
                lines = text.count("\n") + 1
                for error in refused.errors:
                    assert LOCATED.fullmatch(str(error)) and 1 <= error.line <= lines and error.column >= 1, \
                        f"not a located error: {error}\n--- spec.yaml ---\n{text}"
                counts["refused"] += 1
                return
            counts["accepted"] += 1
            name = f"spec{len(accepted) + 1:03d}"
            accepted[name] = text
            if "postgres" in spec.dialects:
                install_cycle(url, with_run_roles(spec, len(accepted)), text)
            if "mssql" in spec.dialects:
                rendering = render_spec(spec, "spec.yaml", "mssql")
                scripts[f"{name}/install.sql"] = rendering.install
                scripts[f"{name}/uninstall.sql"] = rendering.uninstall
                for item in rendering.objects:
                    for block in (item.create, item.drop):
                        objects.setdefault(shape(block), f"{name}/{item.filename}")

        try:
            one_spec()
        finally:
            with psycopg.connect(url, autocommit=True) as conn:  # roles belong to the cluster: only this run's
                for role in run_roles(url) - roles_before:
                    conn.execute(f'DROP ROLE IF EXISTS "{role}"')

    problems = tsql_gate(scripts, {name: text for text, name in objects.items()})
    specs_named = {p.split("/")[0] for p in problems}
    assert not problems, "\n".join(problems) + "".join(f"\n--- {n} ---\n{accepted[n]}" for n in sorted(specs_named))
    assert counts["accepted"] and counts["refused"], counts  # both sides of the property were exercised
