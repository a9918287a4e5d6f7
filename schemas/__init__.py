"""JSON Schemas of the IR, distilled-rules.json and the overrides file; the Cedar schemas."""

from importlib import resources


def read(name: str) -> str:
    """The text of one schema file of this package."""
    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")
