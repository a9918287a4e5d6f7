"""Property tests: arbitrary markdown never crashes the compiler, never yields
an invalid artifact, and never yields a rule whose quote is not in the source."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from policyc.compiler.checks import normalise_ws, self_check
from policyc.compiler.pipeline import compile_sources
from policyc.compiler.sources import SourceError, source_from_bytes
from policyc.emitters.guardrules import emit

FRAGMENTS = [
    "Never run `rm -rf /`.", "- MUST NOT edit `db/migrations/`", "Do not use `any`.", "Always use `pnpm` instead of `npm`.",
    "We usually try to", "```bash\n", "```\n", "~~~\n", "---\n", "# Heading\n", "## Don't\n", "NEVER:\n", "| a | b |\n", "|---|---|\n",
    "> quote never push to main\n", "<!-- never -->\n", "    indented code\n", "1. step\n", "  - nested `git push --force`\n",
    "**Never** commit secrets.", "Prefer `x` over `y`.", "e.g. never", "CRITICAL: never run `kubectl delete ns`.", "\n", "\n\n", "`", "*", "_", "<b>", ":",
]
markdown = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=30)), max_size=25).map("".join)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(markdown, st.sampled_from(["AGENTS.md", ".cursor/rules/x.mdc", ".claude/skills/s/SKILL.md", "CLAUDE.md"]))
@example("> quote never push to main\n\n> quote never push to main\n", "AGENTS.md")  # two quotes: the blank line is kept
def test_arbitrary_markdown_compiles_to_valid_artifacts(text, name):
    try:
        source = source_from_bytes(name, text.encode("utf-8", "surrogatepass"))
    except SourceError:
        return  # empty or undecodable input is reported, not compiled
    ir = compile_sources([source])
    doc = emit(ir)
    assert self_check(doc, {name: source.text}, use_node=False) == []
    flat = normalise_ws(source.text)
    for item in ir.imperatives + ir.skipped:
        assert normalise_ws(item.quote) in flat
