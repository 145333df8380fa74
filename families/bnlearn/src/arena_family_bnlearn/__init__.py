"""CausalArena family ``bnlearn``: the bnlearn repository's reference Bayesian networks.

The network files are the ones pgmpy 1.1/1.2 ships in its wheel
(``pgmpy/utils/example_models``); they are located through
``importlib.metadata`` and parsed by this package, so pgmpy is never imported
and nothing is downloaded. Importing this package reads no file. See
:mod:`arena_family_bnlearn.family`.
"""

__version__ = "0.1.0"
