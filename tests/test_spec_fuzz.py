"""The spec loader against hostile text: specs drawn from the JSON Schema with hostile leaves
(tests/support/spec_strategies.py), dumped to YAML, then one line mutated the way a hand or a
tool breaks a file: a key YAML reads as null, a boolean, a number, a date or a list; a value that
is null, a list, a huge or special number, a YAML tag, an alias to nothing; a control character,
a byte-order mark or a Unicode line separator anywhere; a line written twice. Whatever it does,
load_spec_text either accepts the spec or refuses it with errors that are each located inside the
file (spec.yaml:LINE:COL: path: message) and that speak YAML, not Python (no None, NoneType, dict).
Derandomized; QGEN_FUZZ_EXAMPLES sets how many (default 100, about 20 s here)."""

from __future__ import annotations

import os
import re

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qgen.spec.load import SpecInvalid, load_spec_text
from tests.support.spec_strategies import specs

EXAMPLES = int(os.environ.get("QGEN_FUZZ_EXAMPLES", "100"))
LOCATED = re.compile(r"spec\.yaml:([0-9]+):([0-9]+): (.+)", re.S)
PYTHON_WORDS = re.compile(r"\bNone\b|NoneType|got (dict|list|str|int|float|date|datetime)\b")

ODD_KEYS = ["null", "~", "true", "no", "1", "1.5", "2020-01-01", "''", "!!binary aGk=", "? [a]\n", "? {a: 1}\n"]
ODD_VALUES = ["null", "~", "[]", "{}", "[a, a]", "1e400", ".nan", "-.inf", "2020-01-01", "2020-01-01T00:00:00Z",
              "!!binary aGk=", "!!python/object:os.system x", "99999999999999999999999", "-1", "0x10", "0o7",
              "'\\u0000'", '"\\0"', '"a\\x00b"', '"\\u2028"', "*nope", "&a x", "!!set {a: null}", "!!omap [a: 1]",
              "|\n  text", "'x' * 3"]
CHARACTERS = ["\x00", "\t", "\u2028", "\u0085", "\ufeff", "\x7f", "\x1f", "\u00a0", "\r", "\x0b"]


def mutate(text: str, rnd, how: int) -> str:
    lines = text.split("\n")
    i = rnd.randrange(len(lines))
    line = lines[i]
    if how == 0 and ":" in line:
        indent = len(line) - len(line.lstrip())
        lines[i] = " " * indent + rnd.choice(ODD_KEYS) + ":" + line.split(":", 1)[1]
    elif how == 1 and ": " in line:
        lines[i] = line.split(": ", 1)[0] + ": " + rnd.choice(ODD_VALUES)
    elif how == 2:
        at = rnd.randrange(len(line) + 1)
        lines[i] = line[:at] + rnd.choice(CHARACTERS) + line[at:]
    else:
        lines.insert(i, line)
    return "\n".join(lines)


@settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(specs(), st.randoms(use_true_random=False), st.integers(0, 3))
def test_a_mutated_spec_is_accepted_or_refused_with_located_errors_in_yaml_words(data, rnd, how):
    text = mutate(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), rnd, how)
    try:
        load_spec_text(text, "spec.yaml")
    except SpecInvalid as refused:
        lines = text.count("\n") + 1
        for error in refused.errors:
            assert LOCATED.fullmatch(str(error)) and 1 <= error.line <= lines and error.column >= 1, \
                f"not located in the file: {error}\n--- spec.yaml ---\n{text}"
            assert not PYTHON_WORDS.search(f"{error.path}: {error.message}"), \
                f"speaks Python, not YAML: {error}\n--- spec.yaml ---\n{text}"
