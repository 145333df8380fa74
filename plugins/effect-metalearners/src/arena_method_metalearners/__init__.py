"""CausalArena plugin: back-door S-, X- and DR-learners (Künzel et al. 2019; Kennedy 2023) from econml.

Nine effect methods ``<learner>_<backbone>`` (learner ∈ s_learner, x_learner,
dr_learner; backbone ∈ xgboost, extratrees, mlp, :mod:`arena_effect_backbones`)
for the views ``bd`` and ``hc`` (CausalIDView App. E.2.2 "Back-door"). The
descriptors live in :mod:`arena_method_metalearners.plugin` (cheap), the
estimators in :mod:`arena_method_metalearners.method` (econml is imported in fit).
"""

__version__ = "0.1.0"
