"""policyc: a deterministic policy compiler for coding-agent rulebooks.

The package's modules live in the repository's top-level folders (compiler/, emitters/, grammar/,
schemas/, and package/ for this file), mapped under this one import namespace by pyproject.toml.
"""


def __getattr__(name: str) -> str:
    """`policyc.__version__`, read from the package metadata only when asked (importlib.metadata costs
    more than deciding a hook event)."""
    if name != "__version__":
        raise AttributeError(name)
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("policyc")
    except PackageNotFoundError:  # running from a checkout without an install
        return "0+unknown"
