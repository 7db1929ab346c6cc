"""The spec and what it means, before anything is rendered.

- model.py: the spec's models, the single source of every default; object and role naming.
- load.py: read a spec file (YAML with positions) and report each mistake at its line and column.
- json_schema.py: the JSON Schema editors check a spec with (`qgen schema`).
- catalog.py: which database objects a spec needs, and in what order.
- contract.py: the parameters and result columns of those objects' procedures.
- locks.py: how many rows one statement may touch (the spec check, templates and client read it).

The usual names are importable from here; code inside qgen imports the module that defines them.
"""

from qgen.spec.load import SpecError, SpecInvalid, SpecUnreadable, load_spec, load_spec_text
from qgen.spec.model import Queue, Spec, object_name, role_name, wakeup_channel

__all__ = [
    "Queue",
    "Spec",
    "SpecError",
    "SpecInvalid",
    "SpecUnreadable",
    "load_spec",
    "load_spec_text",
    "object_name",
    "role_name",
    "wakeup_channel",
]
