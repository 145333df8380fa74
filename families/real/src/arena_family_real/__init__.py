"""CausalArena family ``real``: public tables with published graphs.

Heavy work happens only when the family is used; importing this package
reads no file. See :mod:`arena_family_real.family` and
:mod:`arena_family_real.loader`.
"""

__version__ = "0.1.0"
