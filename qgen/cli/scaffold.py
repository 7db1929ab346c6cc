"""`qgen init [DIR]`: an Alembic environment for qgen's revisions, and a starter spec, in a project
of the user's own (as `alembic init` writes one). The files come from qgen/project/, which the wheel
carries: alembic.ini, migrations/env.py, migrations/script.py.mako, an empty migrations/versions/,
and queues.yaml. Nothing is overwritten: when any of them exists, nothing is written.

The example specs (examples/ in a checkout) ship in the wheel as qgen/examples/: `qgen init --example
NAME` writes one instead of the starter spec, and `qgen bench --example NAME` measures one.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).parents[1]  # qgen/
PROJECT = PACKAGE / "project"
SPEC_NAME = "queues.yaml"
FILES = ("alembic.ini", "migrations/env.py", "migrations/script.py.mako", SPEC_NAME)
VERSIONS = "migrations/versions"


def examples_dir() -> Path:
    """examples/ ships inside the wheel as qgen/examples; a checkout keeps it at the repo root."""
    packaged = PACKAGE / "examples"
    return packaged if packaged.is_dir() else PACKAGE.parent / "examples"


def example_names() -> list[str]:
    return sorted(p.stem for p in examples_dir().glob("*.yaml"))


class UnknownExample(ValueError):
    """No example spec of that name; the message lists the names qgen ships."""


def example_path(name: str) -> Path:
    """The packaged example spec NAME (its file stem, e.g. 004_rainfall; a trailing .yaml is fine)."""
    stem = name.removesuffix(".yaml")
    if stem not in example_names():
        raise UnknownExample(f"no example {name!r}; accepted: {', '.join(example_names())}")
    return examples_dir() / f"{stem}.yaml"


class InitRefused(Exception):
    """Some of the files (or the versions folder) exist already; the message names them."""


@dataclass
class Initialised:
    folder: Path
    written: list[Path]


def init_project(folder: Path, spec: bool = True, example: str | None = None) -> Initialised:
    """Write the environment (and, with spec, the starter spec, or the example spec named) into folder;
    refuse to overwrite."""
    files = [f for f in FILES if spec or f != SPEC_NAME]
    sources = {name: PROJECT / name for name in files}
    if example is not None and SPEC_NAME in sources:
        source = example_path(example)
        del sources[SPEC_NAME]
        sources[source.name] = source
        files = list(sources)
    taken = [folder / f for f in files + [VERSIONS] if (folder / f).exists()]
    if taken:
        raise InitRefused("already there: " + ", ".join(str(p) for p in taken) + "; qgen init overwrites nothing "
                          "(to add qgen revisions to an Alembic environment you have, skip init and run "
                          "`qgen revision SPEC -m MESSAGE -c path/to/alembic.ini`)")
    written = []
    for name in files:
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(sources[name], target)
        written.append(target)
    (folder / VERSIONS).mkdir(parents=True)
    written.append(folder / VERSIONS)
    return Initialised(folder, written)
