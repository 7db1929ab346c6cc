"""A strict parser of the Prometheus text exposition format, version 0.0.4, for the tests of
`qgen status --format prometheus` and `qgen metrics` (no prometheus_client: no new dependency).

Stricter than Prometheus itself where the format says what must be: a metric or label name outside
its grammar, a label name starting `__`, an escape other than \\\\, \\" and \\n in a label value, a
raw double quote, a label given twice, a value that is not a float (NaN, +Inf, -Inf included), a
HELP or TYPE given twice or a TYPE after the name's first sample, a TYPE other than the five, the
samples of one name not together, the same series twice, text not ending in a newline: each raises
ExpositionError with the line number. Returns {name: Parsed(help, type, samples)}, samples as
(labels dict, float) in their order.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Optional

METRIC_NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
TYPES = ("counter", "gauge", "histogram", "summary", "untyped")
_FLOAT = re.compile(r"[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|NaN|Inf)")


class ExpositionError(ValueError):
    pass


@dataclass
class Parsed:
    help: Optional[str] = None
    type: Optional[str] = None
    samples: list[tuple[dict[str, str], float]] = field(default_factory=list)


def _unescape_help(text: str, line: int) -> str:
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\":
            nxt = text[i + 1:i + 2]
            if nxt not in ("\\", "n"):
                raise ExpositionError(f"line {line}: HELP escape \\{nxt} (accepted: \\\\, \\n)")
            out.append("\\" if nxt == "\\" else "\n")
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _labels(text: str, at: int, line: int) -> tuple[dict[str, str], int]:
    """Parse `{name="value",...}` starting at text[at] == '{'; returns the labels and the index after '}'."""
    labels: dict[str, str] = {}
    i = at + 1
    while True:
        if text[i:i + 1] == "}":
            return labels, i + 1
        name = LABEL_NAME.match(text, i)
        if not name:
            raise ExpositionError(f"line {line}: a label name expected at column {i + 1}")
        key = name.group()
        if key.startswith("__"):
            raise ExpositionError(f"line {line}: label name {key} is reserved")
        if key in labels:
            raise ExpositionError(f"line {line}: label {key} given twice")
        i = name.end()
        if text[i:i + 2] != '="':
            raise ExpositionError(f"line {line}: '=\"' expected after label {key}")
        i += 2
        value = []
        while True:
            if i >= len(text):
                raise ExpositionError(f"line {line}: label {key}'s value is not closed")
            char = text[i]
            if char == "\\":
                nxt = text[i + 1:i + 2]
                if nxt not in ("\\", '"', "n"):
                    raise ExpositionError(f"line {line}: label value escape \\{nxt} (accepted: \\\\, \\\", \\n)")
                value.append({"\\": "\\", '"': '"', "n": "\n"}[nxt])
                i += 2
            elif char == '"':
                i += 1
                break
            else:
                value.append(char)
                i += 1
        labels[key] = "".join(value)
        if text[i:i + 1] == ",":
            i += 1
        elif text[i:i + 1] != "}":
            raise ExpositionError(f"line {line}: ',' or '}}' expected after label {key}")


def _value(text: str, line: int) -> float:
    if not _FLOAT.fullmatch(text):
        raise ExpositionError(f"line {line}: {text!r} is not a sample value")
    return float(text)


def parse(text: str) -> dict[str, Parsed]:
    if not text.endswith("\n"):
        raise ExpositionError("the text does not end with a newline")
    families: dict[str, Parsed] = {}
    finished: set[str] = set()   # names whose samples ended (another name's sample came after)
    current: Optional[str] = None
    series: set[tuple[str, tuple[tuple[str, str], ...]]] = set()
    for number, line in enumerate(text[:-1].split("\n"), start=1):
        if not line.strip():
            continue
        if line.startswith("#"):
            parts = line.split(" ", 3)
            if len(parts) >= 3 and parts[1] in ("HELP", "TYPE"):
                name = parts[2]
                if not METRIC_NAME.fullmatch(name):
                    raise ExpositionError(f"line {number}: {name!r} is not a metric name")
                family = families.setdefault(name, Parsed())
                if parts[1] == "HELP":
                    if family.help is not None:
                        raise ExpositionError(f"line {number}: a second HELP for {name}")
                    family.help = _unescape_help(parts[3] if len(parts) > 3 else "", number)
                else:
                    kind = parts[3] if len(parts) > 3 else ""
                    if kind not in TYPES:
                        raise ExpositionError(f"line {number}: TYPE {kind!r} (accepted: {', '.join(TYPES)})")
                    if family.type is not None:
                        raise ExpositionError(f"line {number}: a second TYPE for {name}")
                    if family.samples:
                        raise ExpositionError(f"line {number}: TYPE of {name} after its samples")
                    family.type = kind
            continue   # any other comment is allowed by the format
        name_match = METRIC_NAME.match(line)
        if not name_match:
            raise ExpositionError(f"line {number}: a metric name expected: {line!r}")
        name, i = name_match.group(), name_match.end()
        labels: dict[str, str] = {}
        if line[i:i + 1] == "{":
            labels, i = _labels(line, i, number)
        if line[i:i + 1] != " ":
            raise ExpositionError(f"line {number}: a space expected before the value")
        fields = line[i + 1:].split(" ")
        if not 1 <= len(fields) <= 2 or (len(fields) == 2 and not re.fullmatch(r"-?\d+", fields[1])):
            raise ExpositionError(f"line {number}: 'value [timestamp]' expected, got {line[i + 1:]!r}")
        value = _value(fields[0], number)
        if name != current:
            if name in finished:
                raise ExpositionError(f"line {number}: the samples of {name} are not together")
            if current is not None:
                finished.add(current)
            current = name
        key = (name, tuple(sorted(labels.items())))
        if key in series:
            raise ExpositionError(f"line {number}: the series {name}{labels} is given twice")
        series.add(key)
        families.setdefault(name, Parsed()).samples.append((labels, value))
    return families


def value(families: dict[str, Parsed], name: str, **labels: str) -> Optional[float]:
    """The value of the one sample of `name` with exactly these labels, None when there is none."""
    found = [v for got, v in families[name].samples if got == labels] if name in families else []
    assert len(found) <= 1
    return found[0] if found else None


def is_nan(x: float) -> bool:
    return math.isnan(x)
