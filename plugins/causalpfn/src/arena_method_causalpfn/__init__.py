"""CausalArena plugin: CausalPFN (Balazadeh Meresht et al.), a causal foundation model for CATE estimation.

The descriptor lives in :mod:`arena_method_causalpfn.plugin` (cheap: no torch),
the method in :mod:`arena_method_causalpfn.method` (torch and causalpfn are
imported when a checkpoint is loaded), small test checkpoints in
:mod:`arena_method_causalpfn.checkpoint`.
"""

__version__ = "0.1.0"
