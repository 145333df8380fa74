"""Time one full-size ForestDRIV fit (n = 1024, p = 50, default settings): ``python timing_fullsize.py`` (not a test)."""

import time
import warnings

import numpy as np

from arena_method_driv.method import ForestDRIVMethod
from arena_task_effect.effect import EffectDataset

if __name__ == "__main__":
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(0)
    n, q, p = 1024, 100, 50
    X = rng.normal(size=(n + q, p))
    U = rng.choice([-1.0, 1.0], size=n + q)
    Z = rng.integers(0, 2, size=n + q)
    T = (rng.uniform(size=n + q) < 1 / (1 + np.exp(-(-2.0 + 4.0 * Z + 2.0 * U)))).astype(int)
    Y = X[:, 0] + 3 * U + T * (1 + X[:, 1]) + rng.normal(scale=0.5, size=n + q)
    ds = EffectDataset(X=X[:n], T=T[:n], Y=Y[:n], X_query=X[n:], query_ids=np.arange(q), view="iv",
                       auxiliary={"instrument": Z[:n, None]}, auxiliary_query={"instrument": Z[n:, None]})
    t0 = time.perf_counter()
    ForestDRIVMethod(random_state=0).fit(ds)
    print(f"ForestDRIV (defaults, nuisance 'auto'): {time.perf_counter() - t0:.1f} s", flush=True)
