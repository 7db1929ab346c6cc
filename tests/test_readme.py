"""The README documents every spec key: its table is generated from the spec model and must be current."""

from __future__ import annotations

from qgen.jsonschema import spec_reference_markdown
from tests.conftest import ROOT


def test_readme_key_reference_is_current():
    readme = (ROOT / "README.md").read_text()
    start = readme.index("<!-- spec-reference")
    start = readme.index("\n", start) + 1
    end = readme.index("<!-- /spec-reference -->")
    assert readme[start:end] == spec_reference_markdown(), "regenerate the key table in README.md from qgen.jsonschema.spec_reference_markdown()"


def test_readme_names_every_example():
    readme = (ROOT / "README.md").read_text()
    for spec in sorted((ROOT / "examples").glob("*.yaml")):
        assert f"`{spec.name}`" in readme
