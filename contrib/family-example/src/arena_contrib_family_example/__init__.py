"""Example third-party CausalArena family ``textbook`` (see the distribution's README).

The descriptor is in :mod:`.plugin` (the entry point, cheap), the SCMs and
the family class in :mod:`.family`.
"""

#: 0.2.0: columns permuted from the instance id (every table changed)
__version__ = "0.2.0"
