"""Progress of a grid: the bar (or plain log lines), the per-method ETA, and the summary counts."""

from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta, timezone
from typing import Callable, Dict, Mapping, NamedTuple, Optional

from .records import FAILURE_STATUSES


class GridSummary(NamedTuple):
    """What :func:`run_grid` did: counts by status, skipped (resumed) cells, seconds.

    Attributes:
        counts: status value (``"ok"``, ``"env_error"`` …) → runs of this invocation.
        skipped: cells already in the store (resumed), not run.
        total: cells asked for (duplicates included).
        elapsed_seconds: wall-clock seconds of the invocation.
    """

    counts: Dict[str, int]
    skipped: int
    total: int
    elapsed_seconds: float

    @property
    def failures(self) -> int:
        """Runs of this invocation counted as failures (:data:`~causalarena.records.FAILURE_STATUSES`)."""
        return count_failures(self.counts)


def count_failures(counts: Mapping[str, int]) -> int:
    """The number of failures in status → count ``counts``: the progress bar's and the summary's figure.

    Failures are :data:`causalarena.records.FAILURE_STATUSES` (every status
    but ``ok`` and ``unsupported``; ``env_error`` included).
    """
    return sum(int(v) for k, v in counts.items() if k in FAILURE_STATUSES)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class _Progress:
    """The rich progress bar of a grid: cells done / total, failures, ETA (disabled: counts only).

    Where stdout is not a terminal (a redirected log, a batch job's output file) rich's live bar
    would draw nothing until the grid ends, so a plain line is printed instead, at most every
    ``log_every_s`` seconds and once at the end.
    """

    def __init__(self, total: int, enabled: bool, log_every_s: float = 30.0,
                 clock: Callable[[], float] = time.monotonic, groups: Optional[Mapping[str, int]] = None,
                 jobs: int = 1) -> None:
        self.enabled = enabled and total > 0
        self.failures = 0
        self.total, self.done = total, 0
        # ETA per method group: fast methods finish their cells first, so the grid's overall rate early on
        # says little about the slow ones (36 % done at 30 s once read "ETA 0:00:53" with 9 minutes left)
        self.groups = dict(groups or {})
        self.jobs = max(1, int(jobs))
        self._group_done: Dict[str, int] = {}
        self._group_seconds: Dict[str, float] = {}
        self._lock = threading.Lock()
        if not self.enabled:
            return
        import rich
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        self.console = rich.get_console()
        self.lines = not self.console.is_terminal
        self.log_every_s, self._clock = log_every_s, clock
        self._started = self._logged = clock()
        if self.lines:
            return
        self.bar = Progress(TextColumn("[bold]cells"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("failures: {task.fields[failures]}"),
                            TimeElapsedColumn(), TextColumn("ETA {task.fields[eta]}"),
                            transient=False, console=self.console)
        self.task = self.bar.add_task("cells", total=total, failures=0, eta=self.eta_text(0.0))
        self.bar.start()

    def eta_text(self, elapsed: float) -> str:
        """``0:02:32``, or ``estimating (…)`` while a method group with cells left has none finished.

        With method groups: Σ over groups of (cells left × that group's mean wall seconds per finished
        cell) / jobs. Without (an executor's grid): the grid's overall rate.
        """
        def hms(sec: float) -> str:
            return str(timedelta(seconds=round(sec)))

        if not self.groups:
            return "?" if not self.done else hms(elapsed / self.done * (self.total - self.done))
        left = {g: n - self._group_done.get(g, 0) for g, n in self.groups.items()}
        unknown = [g for g, n in left.items() if n > 0 and not self._group_done.get(g)]
        if unknown:
            return f"estimating ({len(unknown)} of {len(self.groups)} methods have no finished cell yet)"
        work = sum(n * self._group_seconds[g] / self._group_done[g] for g, n in left.items() if n > 0)
        return hms(work / self.jobs)

    def line(self, now: float) -> str:
        """The plain progress line: ``cells 12/40 (30%), failures 1, elapsed 0:01:05, ETA 0:02:32``."""
        elapsed = now - self._started
        return (f"cells {self.done}/{self.total} ({100 * self.done // self.total}%), failures {self.failures}, "
                f"elapsed {str(timedelta(seconds=round(elapsed)))}, ETA {self.eta_text(elapsed)}")

    def advance(self, status: str, group: Optional[str] = None, seconds: Optional[float] = None) -> None:
        """One cell finished with ``status``; a failure (:func:`count_failures`) raises the failure count.

        ``group`` (the method) and ``seconds`` (the cell's wall time) feed the per-group ETA.
        """
        with self._lock:
            self.failures += count_failures({str(status): 1})
            self.done += 1
            if group is not None:
                self._group_done[group] = self._group_done.get(group, 0) + 1
                self._group_seconds[group] = self._group_seconds.get(group, 0.0) + float(seconds or 0.0)
            if not self.enabled:
                return
            if not self.lines:
                self.bar.update(self.task, advance=1, failures=self.failures,
                                eta=self.eta_text(self._clock() - self._started))
                return
            if self.done == self.total:
                return  # stop() prints the last line
            now = self._clock()
            if now - self._logged >= self.log_every_s:
                self._logged = now
                self.console.print(self.line(now), markup=False, highlight=False, soft_wrap=True)

    def stop(self) -> None:
        if not self.enabled:
            return
        if self.lines:
            self.console.print(self.line(self._clock()), markup=False, highlight=False, soft_wrap=True)
        else:
            self.bar.stop()
