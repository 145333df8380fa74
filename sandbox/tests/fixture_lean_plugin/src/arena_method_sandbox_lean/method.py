import numpy as np

from causalarena.method import Method


class LeanProbe(Method):
    """0 → 1 iff ``fixture_heavy`` (installed --no-deps) imports and says 0.1.0."""

    def fit(self, dataset):
        import fixture_heavy

        a = np.zeros((dataset.d, dataset.d))
        a[0, 1] = float(fixture_heavy.VERSION == "0.1.0")
        self.adjacency_ = a
        return self
