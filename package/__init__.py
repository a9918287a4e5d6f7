"""policyc: a deterministic policy compiler for coding-agent rulebooks.

The package's modules live in the repository's top-level folders (compiler/, emitters/, grammar/,
schemas/, and package/ for this file), mapped under this one import namespace by pyproject.toml.
"""

from ._version import __version__

__all__ = ["__version__"]
