"""arena-task-effect: the effect-estimation task of CausalArena (CausalIDView).

Datasets, oracles, estimates and metrics: :mod:`arena_task_effect.effect`; the cell pipeline:
:class:`arena_task_effect.task.EffectTask`; the report section: :mod:`arena_task_effect.report`.
"""

from .effect import (  # noqa: F401 - the public names effect methods and families use
    BOUND_ASSUMPTIONS,
    EFFECT_ROLES,
    EFFECT_TARGETS,
    OUTCOME_TYPES,
    EffectDataset,
    EffectInstance,
    EffectMethod,
    EffectOracle,
    EffectPrediction,
)

__version__ = "0.1.0"
