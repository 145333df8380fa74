"""CausalArena families ``real`` (public tables with published graphs) and ``tuebingen`` (cause–effect pairs).

Heavy work happens only when the family is used; importing this package
reads no file. See :mod:`arena_family_real.family` and
:mod:`arena_family_real.loader`, :mod:`arena_family_real.tuebingen`.
"""

__version__ = "0.2.0"
