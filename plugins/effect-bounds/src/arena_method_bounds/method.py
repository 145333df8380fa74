"""Plug-in bound estimators (CausalIDView App. E.2.4): a cell model, then a fixed identified-set formula.

The cell model estimates P(T=t, Y=y | X) — or P(T=t, Y=y | X, I) on the IV view — as ONE four-class
classifier of the joint label k = 2T + Y (not two binary models): multinomial logistic regression
(scikit-learn), or the xgboost / extratrees backbones of ``arena_effect_backbones`` (App. E.2.2
settings; both fit the four classes natively, xgboost with its ``multi:softprob`` objective). The
estimated cells at each query x (at I = 0 and I = 1 on the IV view) go into the formula of the
view's maintained assumption (:mod:`arena_method_bounds.identified_sets`): Manski closed form,
monotone-IV LP with the L2 feasibility projection, or the MSM closed form at the view's Γ.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arena_task_effect.effect import EffectDataset, EffectMethod

from .identified_sets import iv_bounds, manski_bounds, msm_bounds

BACKBONES = ("logistic", "xgboost", "extratrees")


def make_cell_model(backbone: str, seed: int) -> Any:
    """A fresh four-class classifier (``fit(F, k)``, ``predict_proba``) of ``backbone``.

    ``logistic``: ``StandardScaler`` + ``LogisticRegression(C=1.0, lbfgs, max_iter=2000)`` (multinomial
    for more than two classes, scikit-learn's default); ``xgboost`` / ``extratrees``:
    ``arena_effect_backbones.make_classifier`` (App. E.2.2).

    Raises:
        ValueError: an unknown backbone.
    """
    if backbone not in BACKBONES:
        raise ValueError(f"unknown backbone {backbone!r}; expected one of {', '.join(BACKBONES)}")
    if backbone == "logistic":
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        return make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=2000, random_state=seed))
    from arena_effect_backbones import make_classifier

    return make_classifier(backbone, seed=seed)


class PlugInBounds(EffectMethod):
    """Plug-in identified-set estimator for a ``bounds`` target on a binary outcome.

    Args:
        backbone: ``"logistic"``, ``"xgboost"`` or ``"extratrees"`` (the cell model).
        seed: random state of the cell model.
        floor: estimated cells are clipped below at ``floor`` and renormalised (a tree model's 0
            would make P(Y=1 | T=t, x) undefined in the MSM formula); ours, not the paper's.

    After ``fit``: ``lower_``, ``upper_`` (q,); ``cells_`` (q × 4) the estimated P(T, Y | x_query)
    (Manski, MSM) or ``cells_z_`` (2 × q × 4) P(T, Y | x_query, I=z) (IV); ``n_projected_`` the IV
    queries whose estimated cells were projected onto the monotone-IV polytope.

    Raises (from ``fit``):
        ValueError: the target is not ``bounds``; Y or T is not 0/1 (names the field); the IV view
            lacks ``auxiliary['instrument']`` or it is not one 0/1 column; an unknown assumption.
    """

    def __init__(self, backbone: str = "logistic", seed: int = 0, floor: float = 1e-4) -> None:
        if backbone not in BACKBONES:
            raise ValueError(f"unknown backbone {backbone!r}; expected one of {', '.join(BACKBONES)}")
        if not 0.0 <= floor < 0.25:
            raise ValueError(f"floor must lie in [0, 0.25), got {floor}")
        self.backbone, self.seed, self.floor = backbone, int(seed), float(floor)

    def _cells(self, model: Any, F: np.ndarray) -> np.ndarray:
        proba = model.predict_proba(F)
        cells = np.zeros((F.shape[0], 4))
        cells[:, self.classes_] = proba  # a class absent from the context keeps probability 0 (then floored)
        cells = np.maximum(cells, self.floor)
        return cells / cells.sum(axis=1, keepdims=True)

    def fit(self, dataset: EffectDataset) -> "PlugInBounds":
        """Estimate the cell model on the context and the identified set at ``dataset.X_query``."""
        if dataset.target != "bounds":
            raise ValueError(f"{type(self).__name__} estimates bounds; dataset.target is {dataset.target!r}")
        if not np.isin(dataset.Y, (0.0, 1.0)).all():
            raise ValueError("dataset.Y must be a binary 0/1 outcome for the bound formulas")
        label = 2 * dataset.T.astype(np.int64) + dataset.Y.astype(np.int64)
        present = np.unique(label)
        self.classes_ = present
        # xgboost needs labels 0..K−1: encode the present classes by rank
        enc = np.searchsorted(present, label)
        iv = dataset.assumption == "iv"
        if iv:
            inst = dataset.auxiliary.get("instrument")
            if inst is None or inst.shape[1] != 1 or not np.isin(inst, (0.0, 1.0)).all():
                raise ValueError("the iv view needs dataset.auxiliary['instrument'] as one 0/1 column")
            F = np.hstack([dataset.X, inst])
        elif dataset.assumption in ("manski", "msm"):
            F = dataset.X
        else:
            raise ValueError(f"unknown dataset.assumption {dataset.assumption!r}")
        model = make_cell_model(self.backbone, self.seed)
        model.fit(F, enc)
        if iv:
            q = dataset.q
            cz = [self._cells(model, np.hstack([dataset.X_query, np.full((q, 1), float(z))])) for z in (0, 1)]
            lower, upper, projected = iv_bounds(cz[0], cz[1], project=True)
            self.cells_z_ = np.stack(cz)
            self.n_projected_ = int(projected.sum())
        else:
            cells = self._cells(model, dataset.X_query)
            self.cells_ = cells
            if dataset.assumption == "manski":
                lower, upper = manski_bounds(cells)
            else:
                lower, upper = msm_bounds(cells, float(dataset.gamma))  # type: ignore[arg-type]
        # Γ = 1 gives a point: max/min of two equal numbers may cross by one ulp
        self.lower_, self.upper_ = np.minimum(lower, upper), np.maximum(lower, upper)
        return self


class LogisticBounds(PlugInBounds):
    """:class:`PlugInBounds` with the multinomial-logistic cell model (method ``bounds_logistic``)."""

    def __init__(self, backbone: str = "logistic", seed: int = 0, floor: float = 1e-4) -> None:
        super().__init__(backbone, seed, floor)


class XGBoostBounds(PlugInBounds):
    """:class:`PlugInBounds` with the xgboost cell model (method ``bounds_xgboost``)."""

    def __init__(self, backbone: str = "xgboost", seed: int = 0, floor: float = 1e-4) -> None:
        super().__init__(backbone, seed, floor)


class ExtraTreesBounds(PlugInBounds):
    """:class:`PlugInBounds` with the extratrees cell model (method ``bounds_extratrees``)."""

    def __init__(self, backbone: str = "extratrees", seed: int = 0, floor: float = 1e-4) -> None:
        super().__init__(backbone, seed, floor)
