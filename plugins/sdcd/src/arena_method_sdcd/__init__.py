"""arena-method-sdcd: SDCD (Nazaret et al. 2024) for CausalArena."""
