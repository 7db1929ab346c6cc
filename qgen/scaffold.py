"""`qgen init [DIR]`: an Alembic environment for qgen's revisions, and a starter spec, in a project
of the user's own (as `alembic init` writes one). The files come from qgen/project/, which the wheel
carries: alembic.ini, migrations/env.py, migrations/script.py.mako, an empty migrations/versions/,
and queues.yaml. Nothing is overwritten: when any of them exists, nothing is written.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

PROJECT = Path(__file__).parent / "project"
SPEC_NAME = "queues.yaml"
FILES = ("alembic.ini", "migrations/env.py", "migrations/script.py.mako", SPEC_NAME)
VERSIONS = "migrations/versions"


class InitRefused(Exception):
    """Some of the files (or the versions folder) exist already; the message names them."""


@dataclass
class Initialised:
    folder: Path
    written: list[Path]


def init_project(folder: Path, spec: bool = True) -> Initialised:
    """Write the environment (and, with spec, the starter spec) into folder; refuse to overwrite."""
    files = [f for f in FILES if spec or f != SPEC_NAME]
    taken = [folder / f for f in files + [VERSIONS] if (folder / f).exists()]
    if taken:
        raise InitRefused("already there: " + ", ".join(str(p) for p in taken) + "; qgen init overwrites nothing "
                          "(to add qgen revisions to an Alembic environment you have, skip init and run "
                          "`qgen revision SPEC -m MESSAGE -c path/to/alembic.ini`)")
    written = []
    for name in files:
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(PROJECT / name, target)
        written.append(target)
    (folder / VERSIONS).mkdir(parents=True)
    written.append(folder / VERSIONS)
    return Initialised(folder, written)
