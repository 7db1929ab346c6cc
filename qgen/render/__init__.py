"""Render a spec to SQL through templates/, and describe what was rendered.

- engine.py: the Jinja2 environment, the template context, rendering and writing generated/ files.
- names.py: every name a spec's objects get in the database (renders the spec to find out).
- review.py: the review page (REVIEW.md) of a spec and of a revision.

The usual names are importable from here; code inside qgen imports the module that defines them.
"""

from qgen.render.engine import (
    Rendering,
    check_rendering,
    make_environment,
    output_dir,
    render_spec,
    templates_dir,
    write_rendering,
)

__all__ = [
    "Rendering",
    "check_rendering",
    "make_environment",
    "output_dir",
    "render_spec",
    "templates_dir",
    "write_rendering",
]
