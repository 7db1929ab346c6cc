"""An import path kept for imports written by earlier versions: `from qgen.worker import run_worker`
(the README showed it). The code lives in qgen.client.worker; new code imports from qgen.client.
"""

from __future__ import annotations

from qgen.client.worker import NO_RESULT, OVERRUN_ERROR, POLL_INTERVAL, HandlerResultError, WorkerStats, run_worker

__all__ = ["run_worker", "WorkerStats", "POLL_INTERVAL", "OVERRUN_ERROR", "NO_RESULT", "HandlerResultError"]
