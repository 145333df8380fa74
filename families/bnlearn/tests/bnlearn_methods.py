"""A throwaway method for the runner test (workers import it by ``bnlearn_methods:Empty``)."""

import numpy as np

from causalarena.method import Method


class Empty(Method):
    """Returns the empty graph."""

    def fit(self, dataset):
        self.adjacency_ = np.zeros((dataset.d, dataset.d))
        return self
