"""The grammars and the data that drive inference, shipped as package data."""

from importlib import resources


def read(name: str) -> str:
    """The text of one grammar or data file of this package."""
    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")
