"""CausalArena method plugin: AVICI from the ``avici`` package (its pretrained model and loader)."""

__version__ = "0.1.0"
