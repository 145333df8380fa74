"""The synthetic SCM family of CausalArena (App. A.1 of the paper)."""

GENERATOR_VERSION = "synthetic@1"
