"""CausalArena plugin: CDFM (``cdfm-base``), a pretrained causal discovery foundation model.

The descriptor lives in :mod:`arena_method_cdfm.plugin`, the method in
:mod:`arena_method_cdfm.method` (torch and cdfm are imported there, lazily),
the training loop of the shipped small checkpoint in
:mod:`arena_method_cdfm.train_small`.
"""

__version__ = "0.1.0"
