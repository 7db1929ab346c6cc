"""Every T-SQL script qgen renders passes the three gates: Microsoft's parser (SQL Server 2017
level), sqlfluff's tsql dialect with no unparsable section, and qgen's own checks. A template
broken on purpose must fail them, so the gate is known to bite."""

from __future__ import annotations

import re
import shutil

import pytest

from qgen import dialects
from qgen.render import render_spec, templates_dir
from qgen.specload import load_spec
from tests.conftest import COVERAGE_SPECS, EXAMPLES, require
from tests.support.tsql_gate import ParserUnavailable, check_scripts, ensure_parser, own_findings, sqlfluff_findings

pytestmark = pytest.mark.tsql_gate
SPECS = EXAMPLES + COVERAGE_SPECS


@pytest.fixture(scope="module")
def parser() -> None:
    try:
        ensure_parser()
    except ParserUnavailable as exc:
        require(f"Microsoft T-SQL parser unavailable (tools/tsql_parser/build.sh): {exc}")


def rendered(spec_path, templates=None) -> dict[str, str]:
    rendering = render_spec(load_spec(spec_path), spec_path.name, "mssql", templates)
    return {f"{spec_path.stem}/{name}": text for name, text in rendering.files().items()}


@pytest.mark.parametrize("spec_path", SPECS, ids=lambda p: p.stem)
def test_rendered_tsql_passes_every_gate(parser, spec_path):
    spec = load_spec(spec_path)
    scripts = rendered(spec_path)
    findings = check_scripts(scripts)
    problems = [str(f) for found in findings.values() for f in found]
    if spec.sqlserver_version >= 2019:
        # The parser knows SQL Server 2017; the one 2019 option qgen emits is all it may reject.
        assert all("OPTIMIZE_FOR_SEQUENTIAL_KEY" in p for p in problems if "[sqlparser]" in p), problems
        problems = [p for p in problems if "[sqlparser]" not in p]
        assert any("OPTIMIZE_FOR_SEQUENTIAL_KEY = ON" in text for text in scripts.values())
    assert not problems, "\n".join(problems)


def test_default_output_targets_2017_without_newer_syntax():
    scripts = rendered(EXAMPLES[0])
    assert not any("OPTIMIZE_FOR_SEQUENTIAL_KEY" in text for text in scripts.values())


def test_each_module_is_alone_in_its_batch_and_every_batch_ends_with_go():
    for spec_path in SPECS:
        for name, text in rendered(spec_path).items():
            body = "\n".join(line for line in text.splitlines() if not line.startswith("--")).strip()
            if body:
                assert body.endswith("\nGO") or body == "GO", f"{name} does not end its batch with GO"


@pytest.mark.parametrize("spec_path", SPECS, ids=lambda p: p.stem)
def test_qgen_check_sees_every_name_the_tsql_creates(spec_path):
    """qgen/names.py holds the names it collects to SQL Server's limit and to each other: every
    CREATE and every named CONSTRAINT of the rendered T-SQL must be among them."""
    for item in render_spec(load_spec(spec_path), spec_path.name, "mssql").objects:
        code = "\n".join(line for line in item.create.splitlines() if not line.lstrip().startswith("--"))
        creates = re.findall(r"\bCREATE\s+(?:OR\s+ALTER\s+)?(?!SCHEMA\b)\w+", code) + re.findall(r"\bCONSTRAINT\s+\[", code)
        assert len(dialects.get("mssql").created_names(item.create)) == len(creates), (item.filename, creates)


BREAKAGES = {
    # template, what to replace, with what, the gate that must catch it, words of its finding
    "syntax error": ("dequeue.sql.j2", "        ORDER BY {{ m.queue_order(q) }};\n    END TRY",
                     "        ORDER BY {{ m.queue_order(q) }} WHERE;\n    END TRY", "sqlparser", "Incorrect syntax"),
    "CTE without a semicolon": (
        "peek.sql.j2", "    SELECT TOP (@limit)",
        "    DECLARE @n int = 1\n    WITH [c] AS (SELECT 1 AS [x]) SELECT [x] FROM [c];\n    SELECT TOP (@limit)",
        "own", ";",
    ),
    "two procedures in one batch": ("metrics.sql.j2", "{% block drop %}", "{% block drop %}", "own", "GO batch"),
    "unparsable for sqlfluff": ("purge.sql.j2", " AS [archived], ", " AS AS [archived], ",
                                "sqlfluff", "unparsable"),
}


@pytest.mark.parametrize("breakage", BREAKAGES)
def test_a_broken_template_fails_the_gate(parser, tmp_path, breakage):
    template, old, new, gate, words = BREAKAGES[breakage]
    broken = tmp_path / "templates"
    shutil.copytree(templates_dir(), broken)
    path = broken / "mssql" / template
    text = path.read_text()
    if breakage == "two procedures in one batch":
        # drop the batch separator after the procedure, so the next object's CREATE shares its batch
        text = text.replace("END;\n{{ batch }}\n{% endblock %}", "END;\n{% endblock %}", 1)
    else:
        assert old in text
        text = text.replace(old, new, 1)
    path.write_text(text)

    spec_path = EXAMPLES[1]
    install = rendered(spec_path, broken)[f"{spec_path.stem}/install.sql"]
    if gate == "own":
        findings = own_findings(install, "install.sql")
    elif gate == "sqlfluff":
        findings = sqlfluff_findings(install, "install.sql")
    else:
        findings = check_scripts({"install.sql": install})["install.sql"]
        findings = [f for f in findings if f.gate == gate]
    assert findings, f"the {gate} gate let a broken {template} through"
    assert any(words in f.message for f in findings), [str(f) for f in findings]
    # the finding points into the broken object, not somewhere else
    lines = install.splitlines()
    first = findings[0]
    assert 1 <= first.line <= len(lines)
    clean = rendered(spec_path)[f"{spec_path.stem}/install.sql"]
    assert check_scripts({"install.sql": clean})["install.sql"] == []
