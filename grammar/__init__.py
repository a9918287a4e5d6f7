"""The grammars and the data that drive inference, shipped as package data."""

from importlib import resources


def read(name: str) -> str:
    """The text of one grammar or data file of this package."""
    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")


def load(name: str):
    """One YAML data file of this package, read by libyaml's safe loader when PyYAML has it (the pure-Python
    one took 50 ms of every compile's start for the lexicon alone); the same data either way."""
    import yaml  # (not for the hook, which reads no grammar)

    return yaml.load(read(name), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
