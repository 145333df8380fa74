"""CausalArena effect family ``effect_real``: real and semi-synthetic effect tables.

Importing this package reads no file; the tables are read when an instance
builds its first dataset. See :mod:`arena_family_effect_real.family` (the
family, its instances, splits and preprocessing) and
:mod:`arena_family_effect_real.sources` (where each table comes from).
"""

__version__ = "0.1.0"
