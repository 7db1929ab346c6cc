"""An import path kept for imports written by earlier versions: `from qgen.specload import load_spec`
(the README showed it). The code lives in qgen.spec.load; new code imports from qgen.spec.
"""

from __future__ import annotations

from qgen.spec.load import SpecError, SpecInvalid, SpecUnreadable, describe_validation, load_spec, load_spec_text

__all__ = ["SpecError", "SpecInvalid", "SpecUnreadable", "describe_validation", "load_spec", "load_spec_text"]
