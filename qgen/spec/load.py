"""Load a spec file: YAML with positions, validated by qgen.spec.model, every mistake reported at its line and column."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

import yaml
from pydantic import BaseModel, ValidationError

from qgen.spec.model import Spec, shown


@dataclass(frozen=True)
class SpecError:
    file: str
    line: int
    column: int
    path: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}:{self.column}"
        return f"{where}: {self.path}: {self.message}" if self.path else f"{where}: {self.message}"


class SpecInvalid(Exception):
    """Raised with every error found in a spec; str() is the report the CLI prints."""

    def __init__(self, errors: list[SpecError]):
        self.errors = errors
        super().__init__("\n".join(str(error) for error in errors))


class SpecUnreadable(SpecInvalid):
    """The spec file could not be read (missing, a folder, not UTF-8): not an error in a spec."""

    def __init__(self, file: str, why: str):
        super().__init__([SpecError(file, 1, 1, "", f"cannot read the spec: {why}")])
        self.args = (f"{file}: cannot read the spec: {why}",)

    def __str__(self) -> str:
        return str(self.args[0])


class _PositionedLoader(yaml.SafeLoader):
    """A safe loader that refuses duplicate keys (YAML silently keeps the last one)."""


def _construct_mapping(loader: _PositionedLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    loader.flatten_mapping(node)
    seen: dict[Any, yaml.Node] = {}
    for key_node, _ in node.value:
        if not isinstance(key_node, yaml.ScalarNode):  # `? [a, b]`: a list or a mapping as a key
            raise yaml.constructor.ConstructorError(
                None, None, "a key is a list or a mapping; accepted: a name (text)", key_node.start_mark)
        key = loader.construct_object(key_node, deep=True)
        if key in seen:
            first = seen[key].start_mark
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {shown(getattr(key_node, 'value', key))} (first at line {first.line + 1})",
                key_node.start_mark
            )
        seen[key] = key_node
    return yaml.SafeLoader.construct_mapping(loader, node, deep)


_PositionedLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


class _Positions:
    """Maps a field path (as pydantic reports it) to the YAML node it came from."""

    def __init__(self, root: yaml.Node | None):
        self.root = root

    def find(self, path: Iterable[Any]) -> tuple[yaml.Node | None, yaml.Node | None, list[Any]]:
        """Returns (deepest node reached, the key node of that step, the rest of the path not found)."""
        node, key_node = self.root, None
        remaining = list(path)
        while remaining and node is not None:
            step = remaining[0]
            if isinstance(node, yaml.MappingNode):
                match = next(((k, v) for k, v in node.value if k.value == str(step)), None)
                if match is None:
                    break
                key_node, node = match
            elif isinstance(node, yaml.SequenceNode) and isinstance(step, int) and step < len(node.value):
                key_node, node = None, node.value[step]
            elif isinstance(step, str):
                pass  # a short form (`dedupe: [a]` for `dedupe: {key: [a]}`): the step has no node of its own
            else:
                break
            remaining.pop(0)
        return node, key_node, remaining


def _field_names(model: type[BaseModel]) -> list[str]:
    return [info.alias or name for name, info in model.model_fields.items()]


def _model_at(path: list[Any]) -> type[BaseModel] | None:
    """The pydantic model that validates the mapping at `path` (used to list accepted keys)."""
    model: Any = Spec
    for step in path:
        if model is None:
            return None
        if isinstance(model, _MappingOf):
            model = model._value_model
            continue
        fields = {info.alias or name: info for name, info in model.model_fields.items()}
        if step in fields:
            model = _unwrap_model(fields[step].annotation)
        else:
            return None
    return model if isinstance(model, type) and issubclass(model, BaseModel) else None


class _MappingOf:
    """Stands for dict[str, Model] while walking a path through the models."""

    _is_mapping_value = True

    def __init__(self, value_model: Any):
        self._value_model = value_model


def _unwrap_model(annotation: Any) -> Any:
    import typing

    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return _unwrap_model(args[0])
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        for arg in args:
            if arg is not type(None):
                return _unwrap_model(arg)
    if origin is dict:
        inner = _unwrap_model(args[1])
        return _MappingOf(inner) if inner is not None else None
    if origin is list:
        return None
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return None


def _given(value: Any) -> str:
    """A value as the spec wrote it: YAML's null, true and false, not Python's None, True, False."""
    if value is None:
        return "null (no value)"
    if isinstance(value, bool):
        return "true" if value else "false"
    return shown(value)


def _yaml_kind(value: Any) -> str:
    """What YAML read a value as, in the spec's words (never Python's type names)."""
    if value is None:
        return "nothing (an empty value)"
    if isinstance(value, bool):
        return _given(value)
    for kind, words in ((dict, "a mapping"), (list, "a list"), (str, "text"), (int, "a whole number"),
                        (float, "a number"), (bytes, "binary data")):
        if isinstance(value, kind):
            return f"{words} ({shown(value, 40)})"
    return f"a {type(value).__name__} ({shown(value, 40)})"  # a date or a timestamp: YAML reads 2020-01-01 so


def _describe(error: dict) -> str:
    """Turn one pydantic error into 'what is wrong; accepted: ...'."""
    kind, message = error["type"], error["msg"]
    context = error.get("ctx") or {}
    if kind == "missing":
        return "required key is missing"
    if kind == "literal_error":
        return f"{_given(error['input'])} is not accepted; accepted: {context.get('expected', '')}"
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return f"{_given(error['input'])} is not a whole number"
    if kind in ("bool_type", "bool_parsing"):
        return f"{_given(error['input'])} is not accepted; accepted: true or false"
    if kind in ("greater_than_equal", "less_than_equal", "greater_than", "less_than"):
        bound = {"greater_than_equal": "at least", "less_than_equal": "at most",
                 "greater_than": "more than", "less_than": "less than"}[kind]
        limit = next(iter(context.values()))
        return f"{_given(error['input'])} is out of range; accepted: {bound} {limit}"
    if kind == "too_short":
        return "is empty; accepted: at least one entry"
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return f"expected a mapping (key: value lines), got {_yaml_kind(error['input'])}"
    if kind == "list_type":
        return f"expected a list, got {_yaml_kind(error['input'])}"
    if kind in ("string_type",):
        return f"expected text, got {_yaml_kind(error['input'])}"
    if kind == "value_error":
        return message.removeprefix("Value error, ")
    return message


def _format_validation(error: ValidationError, file: str, positions: _Positions) -> list[SpecError]:
    found: list[SpecError] = []
    for item in error.errors(include_url=False):
        loc = [step for step in item["loc"] if not (isinstance(step, str) and step.startswith("function-"))]
        # pydantic marks an error in a mapping's key with a trailing "[key]" step: point at the key itself.
        on_key = bool(loc) and loc[-1] == "[key]"
        loc = [step for step in loc if step != "[key]"]
        if item["type"] == "extra_forbidden":
            parent, key = loc[:-1], loc[-1]
            model = _model_at(parent)
            accepted = _field_names(model) if model else []
            close = difflib.get_close_matches(str(key), accepted, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            message = f"unknown key {shown(key)}; {hint}accepted: {', '.join(accepted)}"
            node, key_node, rest = positions.find(loc)
            mark = (key_node or node).start_mark
        else:
            message = _describe(item)
            node, key_node, rest = positions.find(loc)
            # A missing key is reported at the mapping that lacks it; anything else at its value.
            mark = (key_node if on_key and key_node is not None else node or positions.root).start_mark
        found.append(SpecError(file, mark.line + 1, mark.column + 1, _dotted(loc), message))
    return found


def describe_validation(error: ValidationError) -> list[str]:
    """Each error of a model validated without a file (path: what is wrong), for messages that have no line."""
    found = []
    for item in error.errors(include_url=False):
        loc = [step for step in item["loc"] if not (isinstance(step, str) and (step.startswith("function-") or step == "[key]"))]
        found.append(f"{_dotted(loc)}: {_describe(item)}")
    return found


def _dotted(path: Iterable[Any]) -> str:
    """queues.q.payload.a; a key that is not a plain name (a newline in it, say) is quoted, and cut."""
    text = ""
    for step in path:
        if not isinstance(step, int):
            step = step if re.fullmatch(r"[A-Za-z0-9_<>-]{1,80}", str(step)) else shown(str(step), 40)
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else str(step))
    return text


# A spec expands to a few hundred nodes; YAML aliases can make a small file expand to billions
# (a "billion laughs"), which validating and quoting would walk one by one.
MAX_EXPANDED_NODES = 100_000


def _expanded_size(root: yaml.Node | None) -> int:
    """How many nodes the document holds once every alias is expanded (each node counted once per
    path to it), stopping early past MAX_EXPANDED_NODES. Linear in the composed nodes."""
    sizes: dict[int, int] = {}

    def size(node: yaml.Node) -> int:
        if id(node) not in sizes:
            sizes[id(node)] = 0  # a recursive alias counts as nothing more while it is walked
            children = [part for pair in node.value for part in pair] if isinstance(node, yaml.MappingNode) else (
                node.value if isinstance(node, yaml.SequenceNode) else [])
            total = 1
            for child in children:
                total = min(total + size(child), MAX_EXPANDED_NODES + 1)
            sizes[id(node)] = total
        return sizes[id(node)]

    return size(root) if root is not None else 0


_TEXT_TAG = "tag:yaml.org,2002:str"
_MERGE_TAG = "tag:yaml.org,2002:merge"


def _non_text_keys(root: yaml.Node | None, file: str) -> list[SpecError]:
    """Mapping keys YAML reads as something other than text (null, ~, true, yes, 1, 1.5): every key
    of a spec is a name or a field, so each is reported at the key itself, as it is written."""
    found: list[SpecError] = []

    def walk(node: yaml.Node, path: list[Any]) -> None:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                step = key.value if isinstance(key, yaml.ScalarNode) else "?"
                if key.tag == _MERGE_TAG:  # `<<: *defaults`: the merged mapping's keys are walked there
                    walk(value, path)
                    continue
                if not (isinstance(key, yaml.ScalarNode) and key.tag == _TEXT_TAG):
                    kind = key.tag.rsplit(":", 1)[-1] if isinstance(key, yaml.ScalarNode) else "a collection"
                    found.append(SpecError(
                        file, key.start_mark.line + 1, key.start_mark.column + 1, _dotted(path + [step]),
                        f"the key {shown(step) if step != '' else 'that is empty'} is read by YAML as {kind}, not as "
                        f"text; accepted: a name (quote it, '{step}', to use it as one)"))
                    continue
                walk(value, path + [step])
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                walk(item, path + [index])

    if root is not None:
        walk(root, [])
    return found


def load_spec_text(text: str, file: str = "<spec>") -> Spec:
    """Parse and validate spec text; raises SpecInvalid listing every error found."""
    try:
        root = yaml.compose(text, Loader=_PositionedLoader)
        if _expanded_size(root) > MAX_EXPANDED_NODES:
            alias = re.search(r"\*[^\s,\]}]+", text)
            line = text.count("\n", 0, alias.start()) + 1 if alias else 1
            raise SpecInvalid([SpecError(file, line, 1, "", f"its YAML aliases (*name) expand to more than "
                                         f"{MAX_EXPANDED_NODES} values; accepted: a spec written out, or aliases that "
                                         "repeat a few values")])
        data = yaml.load(text, Loader=_PositionedLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        last = max(1, len(text.splitlines()))
        if mark and mark.line + 1 > last and exc.context_mark:  # found at the end of the file: name where it began
            mark = exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        if line > last:
            line, column = last, 1
        problem = " ".join(part for part in (exc.context, exc.problem) if part)
        raise SpecInvalid([SpecError(file, line, column, "", f"not valid YAML: {problem}")]) from None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow (a NUL byte, a control character)
        before = text[:exc.position]
        line, column = before.count("\n") + 1, exc.position - (before.rfind("\n") + 1) + 1
        raise SpecInvalid([SpecError(file, line, column, "", f"not valid YAML: the character {exc.character:#06x} is not "
                                     "allowed in a YAML file; accepted: printable text (write a control character "
                                     "as an escape inside double quotes, if at all)")]) from None
    if data is None:
        raise SpecInvalid([SpecError(file, 1, 1, "", "the spec is empty; a spec needs at least: queues: {name: {payload: {column: type}}}")])
    positions = _Positions(root)
    if not isinstance(data, dict):
        raise SpecInvalid([SpecError(file, 1, 1, "", "the spec must be a mapping with a queues key")])
    odd_keys = _non_text_keys(root, file)
    if odd_keys:
        raise SpecInvalid(odd_keys)
    try:
        spec = Spec.model_validate(data)
    except ValidationError as exc:
        # The other mistakes too, in one report: the cross-field checks of the spec with each wrong
        # setting taken out (or, a payload column, stood in for), on what is left (_repaired).
        found = _format_validation(exc, file, positions)
        repaired = _repaired(data, exc)
        if repaired is not None:
            spec, taken = repaired
            found += _located(file, positions, [(path, message) for path, message in spec.problems()
                                                if not any(_related(path, t) for t in taken)])
        raise SpecInvalid(_in_line_order(found)) from None
    problems = spec.problems()
    if not problems:
        # Imported here, not at the top: the name check renders the spec (qgen.render imports the spec
        # package), so a module-level import would tie spec/ to render/ in a circle; and it runs only
        # once the spec is valid.
        from qgen.render.names import name_problems

        problems = name_problems(spec)
    if not problems:
        from qgen.spec.locks import lock_problems

        problems = lock_problems(spec)
    if problems:
        raise SpecInvalid(_in_line_order(_located(file, positions, problems)))
    return spec


def _located(file: str, positions: _Positions, problems: list[tuple[tuple, str]]) -> list[SpecError]:
    errors = []
    for path, message in problems:
        node, key_node, _ = positions.find(path)
        # A problem with a column's or a queue's name points at the name; any other at the value.
        about_name = len(path) >= 2 and path[-2] in ("payload", "columns") or (len(path) == 2 and path[0] == "queues")
        mark = (key_node if about_name and key_node is not None else node or positions.root).start_mark
        errors.append(SpecError(file, mark.line + 1, mark.column + 1, _dotted(path), message))
    return errors


# A payload column whose type is wrong is stood in for by one of this type, so that the checks that
# name the column (a dedupe key on it) neither miss it nor blame what it cannot be: an int is NOT
# NULL, fits an index key, and clashes with nothing.
_STAND_IN_COLUMN = "int"


def _related(path: tuple, taken: tuple) -> bool:
    """Whether one path lies within the other (a problem about a setting that was taken out)."""
    shorter = min(len(path), len(taken))
    return tuple(path[:shorter]) == tuple(taken[:shorter])


def _repaired(data: dict, error: ValidationError, rounds: int = 8) -> tuple[Spec, list[tuple]] | None:
    """The spec with every wrong setting taken out (its default applies) and every wrong payload column
    stood in for, and the paths of what was changed; None when that does not make it valid (a
    required key is missing, or a taken-out setting leaves another wrong)."""
    import copy

    data, taken = copy.deepcopy(data), []
    for _ in range(rounds):
        for item in error.errors(include_url=False):
            loc = tuple(step for step in item["loc"] if not (isinstance(step, str) and step.startswith("function-"))
                        and step != "[key]")
            if item["type"] == "missing" or len(loc) < 3 or loc[0] != "queues":
                return None  # a queue (or the spec) cannot be without it: nothing sensible is left to check
            if loc[2] == "payload" and len(loc) >= 4 and isinstance(data["queues"].get(loc[1]), dict) \
                    and isinstance(data["queues"][loc[1]].get("payload"), dict) and loc[3] in data["queues"][loc[1]]["payload"]:
                data["queues"][loc[1]]["payload"][loc[3]] = _STAND_IN_COLUMN
                taken.append(loc[:4])
                continue
            # The deepest key of a mapping on the way: a setting with a default, taken out.
            parent, at = data, None
            for depth, step in enumerate(loc):
                if not isinstance(parent, dict) or step not in parent:
                    break
                if isinstance(parent[step], dict) or depth == len(loc) - 1 or not isinstance(parent[step], (list, dict)):
                    at = (parent, step, loc[:depth + 1])
                parent = parent[step]
            if at is None or len(at[2]) < 3:
                return None
            at[0].pop(at[1], None)
            taken.append(at[2])
        try:
            return Spec.model_validate(data), taken
        except ValidationError as again:
            error = again
    return None


def _in_line_order(errors: list[SpecError]) -> list[SpecError]:
    return sorted(errors, key=lambda error: (error.line, error.column))


def load_spec(path: str | Path) -> Spec:
    """Read a spec file; raises SpecInvalid (a file that cannot be read is reported the same way)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SpecUnreadable(str(path), "no such file") from None
    except IsADirectoryError:
        raise SpecUnreadable(str(path), "it is a folder, not a file") from None
    except UnicodeDecodeError as exc:
        raise SpecUnreadable(str(path), f"not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise SpecUnreadable(str(path), exc.strerror or str(exc)) from None
    return load_spec_text(text, str(path))
