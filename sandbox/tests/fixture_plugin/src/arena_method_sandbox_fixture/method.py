import os
import sys
import time

import numpy as np

from causalarena.method import Method


class WhereAmI(Method):
    """0 → 1 iff the interpreter is this plugin's sandbox and PYTHONPATH is empty."""

    def fit(self, dataset):
        a = np.zeros((dataset.d, dataset.d))
        if "arena-method-sandbox-fixture" in sys.prefix and not os.environ.get("PYTHONPATH"):
            a[0, 1] = 1
        self.adjacency_ = a
        return self


class SleepOnce(Method):
    def __init__(self, marker: str = "", seconds: float = 60.0):
        self.marker = marker
        self.seconds = seconds

    def fit(self, dataset):
        if self.marker and not os.path.exists(self.marker):
            with open(self.marker, "w") as fh:
                fh.write(str(os.getpid()))
            time.sleep(self.seconds)
        a = np.zeros((dataset.d, dataset.d))
        a[0, 1] = a[1, 2] = 1
        self.adjacency_ = a
        return self
