"""The JSON text of policyc's own artifacts: two-space indent, UTF-8 kept, a final newline.

orjson writes the same bytes as `json.dumps(indent=2, ensure_ascii=False)` for what the
artifacts hold (string keys, integers, floats rounded to 4 places; the golden snapshots
hold it to that) and reads dataclasses itself; json's indenting encoder is pure Python
and took 7 of 19 s of a 12 MB compile. Files a user owns (settings, overrides) keep json.
"""

from __future__ import annotations

from typing import Any

import orjson


def encode(data: Any) -> bytes:
    """UTF-8 bytes: policy.ir.json stays bytes, as a str it would take four bytes a character once one emoji is in it."""
    return orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)


def dumps(data: Any) -> str:
    return encode(data).decode()
