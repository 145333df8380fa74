"""Effect methods with answers computable by hand, for the runner integration test.

Workers import this module by its factory path (``_probe:DiffInMeans``); the test passes
``env={"PYTHONPATH": this folder}`` to the runner.
"""

import numpy as np

from arena_task_effect.effect import EffectMethod


class DiffInMeans(EffectMethod):
    """τ̂(x) = mean(Y | T=1) − mean(Y | T=0) over the context, at every query."""

    def fit(self, dataset):
        diff = dataset.Y[dataset.T == 1].mean() - dataset.Y[dataset.T == 0].mean()
        self.cate_ = np.full(dataset.q, diff)
        return self
