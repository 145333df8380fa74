"""Example third-party CausalArena family ``textbook`` (see the distribution's README).

The descriptor is in :mod:`.plugin` (the entry point, cheap), the SCMs and
the family class in :mod:`.family`.
"""

__version__ = "0.1.0"
