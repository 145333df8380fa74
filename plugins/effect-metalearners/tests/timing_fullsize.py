"""Time one full-size fit (n = 1024, p = 51 incl. U) per learner/backbone: ``python timing_fullsize.py`` (not a test)."""

import time
import warnings

import numpy as np

from arena_method_metalearners.method import DRLearnerMethod, SLearnerMethod, XLearnerMethod
from arena_task_effect.effect import EffectDataset

if __name__ == "__main__":
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(0)
    n, q, p = 1024, 100, 50
    X = rng.normal(size=(n + q, p))
    U = rng.choice([-1.0, 1.0], size=n + q)
    T = (rng.uniform(size=n + q) < 1 / (1 + np.exp(-(0.5 * X[:, 0] + 1.2 * U)))).astype(int)
    Y = X[:, 0] + 2 * U + T * (1 + X[:, 1]) + rng.normal(scale=0.5, size=n + q)
    ds = EffectDataset(X=X[:n], T=T[:n], Y=Y[:n], X_query=X[n:], query_ids=np.arange(q), view="bd",
                       auxiliary={"confounder": U[:n, None]}, auxiliary_query={"confounder": U[n:, None]})
    for cls in (SLearnerMethod, XLearnerMethod, DRLearnerMethod):
        for b in ("xgboost", "extratrees", "mlp"):
            t0 = time.perf_counter()
            cls(backbone=b, random_state=0).fit(ds)
            print(f"{cls.__name__} {b}: {time.perf_counter() - t0:.1f} s", flush=True)
