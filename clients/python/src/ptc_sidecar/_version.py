"""The package's version, read by pyproject.toml (setuptools' attr:)."""

__version__ = "0.2.0"
