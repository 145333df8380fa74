"""CausalArena family ``grn``: SERGIO single-cell expression (Dibaeinia & Sinha 2020) on
subnetworks of the real E. coli (RegulonDB 6.7) and yeast (Balaji 2006) regulatory networks,
sampled as AVICI (Lorch et al. 2022) samples them, with gene-knockout interventions.

The simulator, the subnetwork sampler and the two networks are avici 1.0.7's own code and
files, used from an avici installed with ``--no-deps`` and imported without running
``avici/__init__.py`` (which would import jax): see :mod:`arena_family_grn.avici_code`.
Importing this package reads no file and imports nothing of avici. See
:mod:`arena_family_grn.family`.
"""

__version__ = "0.1.0"
