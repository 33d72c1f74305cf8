"""The package's version, at the bottom of the layers: run.json records it (sim/)."""

__version__ = "0.3.0"
