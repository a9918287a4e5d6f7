"""policyc: a deterministic policy compiler for coding-agent rulebooks.

The package's modules live in the repository's top-level folders (compiler/, emitters/, grammar/,
schemas/, and package/ for this file), mapped under this one import namespace by pyproject.toml.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("policyc")
except PackageNotFoundError:  # running from a checkout without an install
    __version__ = "0+unknown"
