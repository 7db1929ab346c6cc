"""An import path kept for code written against earlier versions: `from qgen.results import Job`
(result types lived here). The code lives in qgen.client.results; new code imports from qgen.client.
"""

from __future__ import annotations

from qgen.client.results import (BatchResult, EnqueueResult, Job, MaintainResult, PurgeResult, ReapResult,
                                 RedriveResult, WatermarkCorrection, WorkerStats)

__all__ = ["EnqueueResult", "BatchResult", "ReapResult", "PurgeResult", "WatermarkCorrection", "MaintainResult",
           "RedriveResult", "Job", "WorkerStats"]
