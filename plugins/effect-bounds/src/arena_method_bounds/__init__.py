"""CausalArena plugin: plug-in partial-identification bound estimators (CausalIDView App. B.5, E.2.4).

The descriptors live in :mod:`arena_method_bounds.plugin`; the identified-set
formulas as functions of cell probabilities in
:mod:`arena_method_bounds.identified_sets`; the estimators (a cell model from
a backbone, then the fixed formula) in :mod:`arena_method_bounds.method`.
"""

__version__ = "0.1.0"
