"""Predictive backbones of CausalArena's modular effect estimators (CausalIDView App. E.2.2).

:func:`make_regressor` and :func:`make_classifier` build fresh, unfitted
scikit-learn-compatible models with the paper's fixed settings; every random
state is the caller's seed, so a fit is reproducible.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

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
