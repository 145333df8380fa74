"""Predictive backbones of CausalArena's modular effect estimators (CausalIDView App. E.2.2).

:func:`make_regressor` and :func:`make_classifier` build fresh, unfitted
scikit-learn-compatible models with the paper's fixed settings; every random
state is the caller's seed, so a fit is reproducible. The pieces every
estimator distribution needs at fit time live here once: :func:`resolve_seed`
(the cell's seed) and :func:`binary_column` (a binary auxiliary such as the
instrument or a proxy, checked and recoded). The descriptor modules do not
import this package: the conformance kit's ``descriptor_cheap`` rule forbids a
descriptor module to import any of its distribution's requirements.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

__version__ = "0.2.0"

#: the backbones, in the paper's order
BACKBONES = ("xgboost", "extratrees", "mlp")
#: ExtraTrees minimum leaf sizes by use (App. E.2.2)
LEAF = {"classifier": 8, "nuisance": 6, "final": 10}


def _check(backbone: str) -> None:
    if backbone not in BACKBONES:
        raise ValueError(f"unknown backbone {backbone!r}; expected one of {', '.join(BACKBONES)}")


def make_regressor(backbone: str, seed: int = 0, final: bool = False) -> Any:
    """A fresh regressor of ``backbone`` (``fit(X (n × p), y (n,))``, ``predict(X) -> (n,)``).

    Args:
        backbone: ``"xgboost"``, ``"extratrees"`` or ``"mlp"``.
        seed: random state of the model.
        final: the model is a final CATE (pseudo-outcome) regression: ExtraTrees
            then uses leaf size 10 instead of the nuisance models' 6.

    Raises:
        ValueError: an unknown backbone.
    """
    _check(backbone)
    if backbone == "xgboost":
        from xgboost import XGBRegressor

        return XGBRegressor(n_estimators=300, max_depth=3, learning_rate=0.05, tree_method="hist",
                            random_state=seed, n_jobs=1)
    if backbone == "extratrees":
        from sklearn.ensemble import ExtraTreesRegressor

        return ExtraTreesRegressor(n_estimators=300, max_features=0.8,
                                   min_samples_leaf=LEAF["final" if final else "nuisance"],
                                   random_state=seed, n_jobs=1)
    from sklearn.compose import TransformedTargetRegressor
    from sklearn.neural_network import MLPRegressor
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    mlp = MLPRegressor(hidden_layer_sizes=(128, 128), activation="relu", solver="adam", learning_rate_init=1e-3,
                       alpha=1e-4, batch_size=128, max_iter=200, early_stopping=False, random_state=seed)
    return TransformedTargetRegressor(regressor=make_pipeline(StandardScaler(), mlp), transformer=StandardScaler())


def make_classifier(backbone: str, seed: int = 0) -> Any:
    """A fresh binary classifier of ``backbone`` (``fit(X, y∈{0,1})``, ``predict_proba(X) -> (n × 2)``).

    Raises:
        ValueError: an unknown backbone.
    """
    _check(backbone)
    if backbone == "xgboost":
        from xgboost import XGBClassifier

        return XGBClassifier(n_estimators=300, max_depth=3, learning_rate=0.05, tree_method="hist",
                             random_state=seed, n_jobs=1)
    if backbone == "extratrees":
        from sklearn.ensemble import ExtraTreesClassifier

        return ExtraTreesClassifier(n_estimators=300, max_features=0.8, min_samples_leaf=LEAF["classifier"],
                                    random_state=seed, n_jobs=1)
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), MLPClassifier(hidden_layer_sizes=(128, 128), activation="relu",
                                                         solver="adam", learning_rate_init=1e-3, alpha=1e-4,
                                                         batch_size=128, max_iter=200, random_state=seed))


def resolve_seed(random_state: Optional[int], dataset: Any = None) -> int:
    """The seed handed to every backbone and fold splitter of a fit.

    ``random_state`` when given; else the dataset's ``metadata["seed"]`` (the
    cell's seed, as the conformance kit expects); else one draw
    ``numpy.random.randint(0, 2**31 − 1)`` from numpy's global generator, which
    the arena's worker seeds with the cell's seed
    (:func:`causalarena.protocol.cell_seed`) before ``fit`` — so the fit is a
    deterministic function of the cell's seed.

    Raises:
        ValueError: ``random_state`` is not a non-negative integer.
    """
    metadata = getattr(dataset, "metadata", None) or {}
    if random_state is None and metadata.get("seed") is not None:
        return int(metadata["seed"]) % (2 ** 31 - 1)
    if random_state is None:
        return int(np.random.randint(0, 2 ** 31 - 1))
    if isinstance(random_state, bool) or not isinstance(random_state, (int, np.integer)) or random_state < 0:
        raise ValueError(f"random_state must be a non-negative integer or None, got {random_state!r}")
    return int(random_state)


def binary_column(dataset: Any, role: str, who: str = "", allow_constant: bool = False,
                  recode: bool = True) -> np.ndarray:
    """The one binary column of ``dataset.auxiliary[role]`` as an (n,) float array.

    With ``recode`` a column with two distinct values a < b (e.g. a
    standardised 0/1 column) becomes a → 0, b → 1 (an order-preserving
    relabelling: instruments and proxies are labels, so the Wald ratio and the
    bridge functional do not depend on the coding); without it the dataset's
    own two levels are kept. ``allow_constant`` keeps a column with one value
    (as 0 when recoding): a degenerate instrument, whose first stage is 0.

    Args:
        dataset: an :class:`~arena_task_effect.effect.EffectDataset` (``auxiliary``, ``view``, ``roles``, ``n``).
        role: ``"instrument"``, ``"treatment_proxy"``, ``"outcome_proxy"``, …
        who: the estimator's name, to start the error messages.

    Raises:
        ValueError: the role is absent, has more than one column, is not finite,
            or takes more than two values (or one, without ``allow_constant``);
            the message names the field.
    """
    head = f"{who} " if who else ""
    if role not in dataset.auxiliary:
        raise ValueError(f"{head}needs auxiliary[{role!r}]; view {dataset.view!r} carries "
                         f"{dataset.roles or 'no role'}")
    col = np.asarray(dataset.auxiliary[role], dtype=float)
    col = col.reshape(-1, 1) if col.ndim == 1 else col
    if col.ndim != 2 or col.shape[0] != dataset.n:
        raise ValueError(f"auxiliary[{role!r}] must be ({dataset.n} × 1), got shape {col.shape}")
    if col.shape[1] != 1:
        raise ValueError(f"auxiliary[{role!r}] must be one binary column, got {col.shape[1]} columns")
    col = col[:, 0]
    if not np.isfinite(col).all():
        raise ValueError(f"auxiliary[{role!r}] has non-finite entries")
    values = np.unique(col)
    if len(values) > 2 or (len(values) < 2 and not allow_constant):
        raise ValueError(f"auxiliary[{role!r}] must be binary with both values present, found "
                         f"{len(values)} distinct value(s) (first {values[:3].tolist()})")
    if not recode:
        return col
    return (col == values[1]).astype(float) if len(values) == 2 else np.zeros_like(col)
