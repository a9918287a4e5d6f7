"""The jinja2 environment of the text emitters (templates in emitters/templates/)."""

from __future__ import annotations

from functools import lru_cache

from jinja2 import Environment, PackageLoader, StrictUndefined

from ..compiler.ir import lines_label
from ..compiler.sondera import cedar_string
from . import text


@lru_cache(maxsize=1)
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("policyc.emitters", "templates"),
        autoescape=False,  # Markdown and Cedar, escaped by the filters below
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=StrictUndefined,
    )
    env.filters.update(
        cedar=cedar_string,
        code=text.md_code,
        md=text.md_text,
        spans=text.md_spans,
        fence=text.md_fence,
        one_line=text.one_line,
        lines=lines_label,
    )
    return env


def render(template: str, **values) -> str:
    return environment().get_template(template).render(**values)
