"""Hypothesis strategies for specs, walked from the spec's JSON Schema (qgen schema), so a key the
models gain is generated without a change here. The schema gives the shape (keys, enums, ranges,
the type grammar); the leaves are drawn hostile on purpose: names that are SQL reserved words, the
procedures' internal names, qgen's own columns, mixed case, names at and past the length limits,
reserved schemas and roles, now and then a name no database takes; numbers at, inside and past
their bounds. A draw can also point dedupe keys and outbox queues at names that exist, so that
accepted specs are common enough to install."""

from __future__ import annotations

import string
from typing import Any

from hypothesis import strategies as st

from qgen.spec.json_schema import spec_json_schema
from qgen.spec.model import MAX_INT, TYPE_PATTERN_JSON

RESERVED_WORDS = ["select", "from", "where", "order", "group", "table", "user", "limit", "offset", "key", "index",
                  "primary", "default", "check", "end", "begin", "return", "found", "new", "old", "result",
                  "version", "token", "target", "owner", "error", "value", "values", "type", "status", "name",
                  "GO", "go", "exec", "declare", "language", "sql", "null", "true", "on", "yes", "no"]
INTERNAL_NAMES = ["v_token", "v_current", "v_target", "v_cutoff", "v_sequence", "v_id", "v_key_1", "v_job",
                  "v_lowest", "v_completed", "new_id", "ordinality", "position", "now", "claimed", "existing",
                  "deleted", "tries", "written", "job", "jobs", "batch_size", "lease_seconds", "max_items",
                  "complete_lease_token", "older_than_seconds", "job_id", "qgen", "q"]
QGEN_COLUMNS = ["id", "priority", "available_at", "enqueued_at", "enqueued_by", "attempts", "lease_owner",
                "lease_token", "lease_expires_at", "claimed_at", "claimed_by", "processed", "processed_at",
                "last_error", "dead_at", "completed_at", "ordinal", "run_at", "enqueued", "job_type", "source_id",
                "created_at", "one_row"]
RESERVED_SCHEMAS_AND_ROLES = ["public", "dbo", "sys", "pg_catalog", "pg_jobs", "information_schema", "guest",
                              "db_owner", "sysadmin", "pg"]
# A name no database should see: each must be refused with a located error.
UNSAFE_NAMES = ["a b", "x;drop", "a]b", 'a"b', "1abc", "", "jobs\n", "ü", "a-b"]

_FIRST = string.ascii_letters + "_"
_REST = string.ascii_letters + string.digits + "_"


def _mixed_case(name: str) -> st.SearchStrategy[str]:
    return st.lists(st.booleans(), min_size=len(name), max_size=len(name)).map(
        lambda flips: "".join(c.upper() if f else c for c, f in zip(name, flips)))


def names(hostile: bool) -> st.SearchStrategy[str]:
    """Friendly: names a spec may use, many of them words SQL or qgen use themselves. Hostile: also
    qgen's own columns, reserved schemas and roles, names past the limits, and unsafe text."""
    plain = st.builds(lambda a, b: a + b, st.sampled_from(_FIRST), st.text(_REST, max_size=6))
    words = st.sampled_from(RESERVED_WORDS + INTERNAL_NAMES)
    if not hostile:
        long = st.builds(lambda a, n: (a * 64)[:n], st.sampled_from(["q", "Job_", "x1"]), st.sampled_from([20, 30]))
        return st.one_of(plain, plain, words, words.flatmap(_mixed_case), long)
    taken = st.sampled_from(QGEN_COLUMNS + RESERVED_SCHEMAS_AND_ROLES)
    long = st.builds(lambda a, n: (a * 64)[:n], st.sampled_from(["q", "Job_", "x1"]), st.sampled_from([40, 55, 62, 63, 64]))
    return st.one_of(plain, words, words.flatmap(_mixed_case), taken, taken.flatmap(_mixed_case), long,
                     st.sampled_from(UNSAFE_NAMES))


def _types(hostile: bool) -> st.SearchStrategy[str]:
    plain = st.sampled_from(["int", "bigint", "text", "uuid", "bool", "datetime", "json", "xml"])
    if not hostile:
        return st.one_of(plain, st.sampled_from(["string(1)", "string(50)", "string(320)", "decimal(10,2)", "decimal(36,0)"]))
    strings = st.sampled_from([1, 50, 320, 672, 673, 850, 851, 4000, 4001, 0]).map(lambda n: f"string({n})")
    decimals = st.tuples(st.sampled_from([1, 10, 38, 39]), st.sampled_from([0, 2, 10, 40])).map(lambda ps: f"decimal({ps[0]},{ps[1]})")
    return st.one_of(plain, strings, decimals, st.sampled_from(["strng(5)", "decimal(10, 2", "INT"]))


def _integers(node: dict, hostile: bool) -> st.SearchStrategy[int]:
    low, high = node.get("minimum"), node.get("maximum")
    inside = st.integers(min_value=low if low is not None else 0, max_value=high if high is not None else 1000)
    bounds = st.sampled_from([v for v in (low, high) if v is not None] or [0])
    if not hostile:
        return st.one_of(inside, bounds)
    edges = [v for v in (0, 1, -1, MAX_INT, MAX_INT + 1, 2**63)] + [v + d for v in (low, high) if v is not None for d in (-1, 1)]
    return st.one_of(inside, bounds, st.sampled_from(edges))


def _durations(hostile: bool) -> st.SearchStrategy[Any]:
    valid = st.one_of(st.sampled_from(["1s", "30s", "5m", "1h", "7d", str(MAX_INT), "24855d"]),
                      st.integers(min_value=1, max_value=10**6), st.just(MAX_INT))
    if not hostile:
        return valid
    return st.one_of(valid, st.sampled_from(["0", "0s", str(MAX_INT + 1), "24856d", "30000d", "5 minutes", "-1",
                                             MAX_INT + 1, -5, True, 0]))


def _namings(hostile: bool) -> st.SearchStrategy[str]:
    valid = ["{queue}_{object}", "{object}_{queue}", "{queue}{object}", "qg_{queue}_{object}", "{queue}__{object}_x"]
    return st.sampled_from(valid + (["{queue}", "{queue}-{object}", "{object}"] if hostile else []))


class _FromSchema:
    def __init__(self, hostile: bool) -> None:
        self.hostile = hostile
        self.root = spec_json_schema()
        self.defs = self.root.get("$defs", {})

    def resolve(self, node: dict) -> dict:
        while "$ref" in node:
            node = self.defs[node["$ref"].rsplit("/", 1)[1]]
        return node

    def of(self, node: dict, key: str | None = None) -> st.SearchStrategy[Any]:
        node = self.resolve(node)
        if "const" in node:
            return st.just(node["const"])
        if "enum" in node:
            wrong = [st.sampled_from(["lock", 2018, "Lease"])] if self.hostile else []
            return st.one_of(st.sampled_from(node["enum"]), *wrong)
        if "anyOf" in node:
            return st.one_of([self.of(option, key) for option in node["anyOf"]])
        kind = node.get("type")
        if isinstance(kind, list):
            if node.get("pattern", "").startswith("^\\d+"):
                return _durations(self.hostile)
            return st.one_of([self.of({**node, "type": k}, key) for k in kind])
        if kind == "null":
            return st.none()
        if kind == "boolean":
            return st.one_of(st.booleans(), st.sampled_from(["yes", 1])) if self.hostile else st.booleans()
        if kind == "integer":
            return _integers(node, self.hostile)
        if kind == "string":
            if node.get("pattern") == TYPE_PATTERN_JSON:
                return _types(self.hostile)
            if key == "naming":
                return _namings(self.hostile)
            if key == "handler":
                return st.one_of(names(self.hostile), st.builds(lambda a, b: f"{a}.{b}", names(self.hostile), names(self.hostile)))
            return names(self.hostile)
        if kind == "array":
            return st.lists(self.of(node.get("items", {}), key), min_size=node.get("minItems", 0), max_size=3,
                            unique=not self.hostile)
        if kind == "object":
            return self._object(node, key)
        return st.nothing()

    def _object(self, node: dict, key: str | None) -> st.SearchStrategy[dict]:
        if node.get("properties"):
            required = set(node.get("required", ()))
            properties = {k: self.of(v, k) for k, v in node["properties"].items()}
            return st.fixed_dictionaries({k: v for k, v in properties.items() if k in required},
                                         optional={k: v for k, v in properties.items() if k not in required})
        extra = node.get("additionalProperties")
        if not isinstance(extra, dict):
            return st.just({})
        allowed = (node.get("propertyNames") or {}).get("enum")
        keys = st.sampled_from(allowed) if allowed else names(self.hostile)
        size = {"queues": 2, "payload": 3, "columns": 2, "names": 2}.get(key, 2)
        return st.dictionaries(keys, self.of(extra, key), min_size=node.get("minProperties", 0), max_size=size)


@st.composite
def specs(draw) -> dict:
    """A spec as YAML would hold it. Two thirds are drawn friendly and then made consistent (the
    references point at what exists, options a delete or priority queue cannot have are dropped), so
    that accepted specs, hostile names and all, are common enough to install; a third stay hostile."""
    hostile = draw(st.sampled_from([False, False, True]))
    schema = _FromSchema(hostile)
    spec = draw(schema.of(schema.root))
    if not hostile:
        _make_consistent(draw, spec)
    return spec


def _make_consistent(draw, spec: dict) -> None:
    queues = spec.get("queues") or {}
    for name, queue in queues.items():
        columns = list(queue["payload"])
        if queue.get("dedupe") is not None:
            queue["dedupe"] = draw(st.lists(st.sampled_from(columns), min_size=1, max_size=2, unique=True))
        if queue.get("claim") == "delete":
            for lease_only in ("lease", "retry", "dead_letter", "worker", "outbox"):
                queue.pop(lease_only, None)
            if queue.get("on_complete") == "mark":
                queue["on_complete"] = "delete"
        if queue.get("ordering") == "priority":
            queue["watermark"] = False
        outbox = queue.get("outbox")
        if isinstance(outbox, dict):
            others = [q for q in queues if q != name and queues[q].get("job_type") is None]
            if outbox.get("columns") or not others:
                queue["outbox"] = {"columns": outbox.get("columns") or {"result": "int"}}
            else:
                queue["outbox"] = {"queue": draw(st.sampled_from(others))}
