"""An import path kept for imports written by earlier versions: a migrations/env.py that `qgen init`
wrote does `from qgen.urls import database_of`. The code lives in qgen.dialects.urls; new code imports
from there.
"""

from __future__ import annotations

from qgen.dialects.urls import ACCEPTED, SCHEMES, UnknownDatabase, database_of, redacted

__all__ = ["ACCEPTED", "SCHEMES", "UnknownDatabase", "database_of", "redacted"]
