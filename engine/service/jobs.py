"""Index runs started over the service: each a job with an id, its progress, and a way to cancel it.

A job holds the engine while it indexes, and lets waiting requests in between two files (so a
question asked meanwhile is answered from what is indexed so far); cancelling stops it before the
next file (each file is written in its own transaction: every file is at its old state or its new)."""

from __future__ import annotations

import itertools
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import TroveError

if TYPE_CHECKING:
    from engine.ingest.indexer import IndexReport, Progress
    from engine.service.calls import Engine


class Cancelled(TroveError):
    """Raised from an index run's progress callback when its job is cancelled."""


@dataclass
class Job:
    id: int
    paths: list[str]
    state: str = "waiting"  # waiting | running | done | failed | cancelled
    progress: dict = field(default_factory=dict)  # done, total, path, stage (engine.Progress)
    report: IndexReport | None = None
    error: str | None = None
    started: float = field(default_factory=time.time)
    ended: float | None = None
    cancel: threading.Event = field(default_factory=threading.Event)

    def as_dict(self) -> dict:
        return {"id": self.id, "paths": self.paths, "state": self.state, "progress": self.progress,
                "report": self.report.as_dict() if self.report else None, "error": self.error,
                "started": self.started, "ended": self.ended}


class Jobs:
    """The index jobs of one service, kept until it stops; one runs at a time (the home's lock)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._jobs: dict[int, Job] = {}
        self._ids = itertools.count(1)

    def start(self, paths: list[str]) -> Job:
        """A job indexing `paths` (and every folder followed), started in a thread of its own."""
        if any(job.state in ("waiting", "running") for job in self._jobs.values()):
            raise TroveError("an index job is running already (GET /jobs): wait for it or cancel it")
        job = Job(next(self._ids), paths)
        self._jobs[job.id] = job
        threading.Thread(target=self._run, args=(job,), name=f"index job {job.id}", daemon=True).start()
        return job

    def get(self, job_id: int) -> Job:
        try:
            return self._jobs[job_id]
        except KeyError:
            raise LookupError(f"no index job {job_id}") from None

    def all(self) -> list[Job]:
        return list(self._jobs.values())

    def _run(self, job: Job) -> None:
        gate = self.engine.gate

        def heard(p: Progress) -> None:
            job.progress = {"done": p.done, "total": p.total, "path": p.path, "stage": p.stage}
            if job.cancel.is_set():
                raise Cancelled(f"index job {job.id} was cancelled")
            gate.let_others_in()

        gate.acquire()
        try:
            job.state = "running"
            job.report = self.engine.trove.index([Path(p) for p in job.paths], heard)
            job.state = "done"
        except Cancelled:
            job.state = "cancelled"
        except Exception as exc:  # any failure is the job's state and message, never a lost thread
            job.state, job.error = "failed", str(exc) or type(exc).__name__
        finally:
            gate.release()
            job.ended = time.time()
