"""Descriptor of the amortized model (entry point ``causalarena: amortized``) and its train command.

Cheap by contract: imports only the core's records and hook marker.
"""

from __future__ import annotations

import os
from typing import Iterator

from causalarena.hookspecs import hookimpl
from causalarena.records import CommandInfo, MethodInfo, PretrainingPrior

#: the mechanism tags, noise and root families of arena-family-synthetic (the prior takes all of them)
_MECHANISMS = ("activation", "aggregation", "discretisation", "exp_log", "interaction", "linear", "multiplicative",
               "neural", "periodic", "piecewise", "polynomial", "rational", "regime_switching", "rff", "saturation",
               "tree")
_NOISES = ("beta", "censored", "exponential", "gaussian", "gumbel", "heteroskedastic", "laplace", "mixture_outlier",
           "multiplicative_lognormal", "none", "quantized", "rff_heteroskedastic", "student_t", "target_r2", "uniform")
_ROOTS = ("bernoulli", "dependent:common_factor", "dependent:random_covariance", "dependent:uniform_ball",
          "exponential", "gamma", "gaussian", "gumbel", "lognormal", "mixture_gaussian", "multinomial", "ordinal",
          "poisson", "scaled_beta", "truncated_gaussian", "uniform", "zipf")

#: the shipped checkpoint's prior = ``GeneratorPrior.pretraining_prior`` of ``priors/er_sf_d10_20.yaml``
#: (a constant so that listing methods reads no YAML; a test re-derives it from the file)
DEFAULT_PRIOR = PretrainingPrior(
    axes={"graph": ("er", "sf"), "mechanism": _MECHANISMS, "noise": _NOISES, "root": _ROOTS},
    d_range=(10, 20),
    n_range=(1000, 1000),
    source="arena-method-amortized checkpoints/default/prior.yaml: the arena's synthetic generator restricted "
           "to it (arena_family_synthetic.prior), exactly the training data",
)


#: read here too (not only in the worker), so a run's parameters — and its config hash — name the checkpoint
CHECKPOINT_ENV = "CAUSALARENA_AMORTIZED_CHECKPOINT"


@hookimpl
def arena_methods() -> Iterator[MethodInfo]:
    """Yield the amortized model's descriptor (DAG, probabilities as edge scores, obs and obs+int).

    ``checkpoint`` is ``$CAUSALARENA_AMORTIZED_CHECKPOINT`` as an absolute path
    when set (``arena run`` has no per-method options), so runs of another
    checkpoint are other configurations: stored apart, never skipped as done.
    """
    env = os.environ.get(CHECKPOINT_ENV)
    yield MethodInfo(
        name="amortized",
        factory="arena_method_amortized.method:AmortizedMethod",
        output_kind="dag",
        supports_interventions=True,
        params={"checkpoint": os.path.abspath(env) if env else None, "threshold": None},
        description="amortized structure learner trained on the arena's own generator (er/sf, d 10-20): "
                    "pairwise and conditional statistics -> a small edge network; prior declared exactly",
        prior=DEFAULT_PRIOR,
    )


@hookimpl
def arena_commands() -> Iterator[CommandInfo]:
    """``arena amortized-train``: train a checkpoint from a prior YAML and a seed (bit for bit)."""
    yield CommandInfo(name="amortized-train", factory="arena_method_amortized.train",
                      help="train the amortized model on the synthetic generator restricted to a prior YAML",
                      description="train a checkpoint of arena-method-amortized (bit for bit from seed and prior)")
