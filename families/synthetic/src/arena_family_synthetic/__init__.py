"""The synthetic SCM family of CausalArena (App. A.1 of the paper)."""

#: the generator's version, recorded in every spec's metadata (``generator``). @2 (issue 12):
#: the random-Fourier-feature mechanism and noise are evaluated in float32 row blocks
#: (``mechanisms.rff_features_sum``); SCMs using them get new tables, the others keep theirs.
GENERATOR_VERSION = "synthetic@2"
#: the namespace of the configuration seeds (``schedule.config_seed``): unchanged by @2, so every
#: configuration keeps its graph and parameter draws (only RFF evaluation changed).
SEED_VERSION = "synthetic@1"
