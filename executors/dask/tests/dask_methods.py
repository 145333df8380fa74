"""Methods for the Dask executor's tests (imported by the arena's method workers through PYTHONPATH)."""

from __future__ import annotations

import os
import signal
import time

import numpy as np

from causalarena.method import Method


class Sleepy(Method):
    """Sleeps ``seconds`` (default 0.4), then returns the empty graph: a cell that takes a while."""

    def __init__(self, seconds: float = 0.4):
        self.seconds = seconds

    def fit(self, dataset):
        time.sleep(self.seconds)
        self.adjacency_ = np.zeros((dataset.d, dataset.d), dtype=int)
        return self


class KillsItsDaskWorker(Method):
    """SIGKILLs its parent — the Dask worker process that runs the arena's method worker — every time."""

    def fit(self, dataset):
        os.kill(os.getppid(), signal.SIGKILL)
        time.sleep(30)
        self.adjacency_ = np.zeros((dataset.d, dataset.d), dtype=int)
        return self
