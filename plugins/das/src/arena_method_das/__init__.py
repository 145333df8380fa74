"""CausalArena plugin: DAS (Discovery At Scale; Montagna et al. 2023).

Score-matching causal discovery for nonlinear additive (Gaussian) noise models:
the SCORE leaf ordering from the Stein Hessian estimator (Rolland et al. 2022),
the DAS edge preselection from the Hessian's off-diagonal entries, and CAM
pruning with additive spline regressions (Bühlmann et al. 2014).

The descriptor lives in :mod:`arena_method_das.plugin`, the estimators in
:mod:`arena_method_das.stein`, the pruning in :mod:`arena_method_das.pruning`
and the method class in :mod:`arena_method_das.method`.
"""

__version__ = "0.1.0"
