"""The §13 end-of-run summary, as text or as JSON."""

from __future__ import annotations

from .ir import PolicyIR

# One icon per action in every rule listing (the summary and the lifecycle verbs).
ICONS = {"block": "✗", "ask": "?", "warn": "⚠", "soft_block": "✗", "rewrite": "↻"}
_LABELS = {"block": "block", "ask": "ask", "warn": "advisory"}
# What each admission gate found, in the summary's words ("demoted: 14 too broad, …").
GATE_WORDS = {"source": "soft marker in a scan-only source or a skill step", "polarity": "inverted",
              "object": "example or placeholder", "kind": "wrong kind", "scope": "unresolved qualifier",
              "breadth": "too broad", "loadable": "cannot load"}



def summary_data(ir: PolicyIR, doc: dict, output: str, review: bool = False) -> dict:
    """The summary of a run: its counts from the resolved view (compiler/resolve.py, the one place they are
    derived), the lowering backends' counts and the top rules from the distilled document it wrote."""
    from .resolve import resolve

    stats = resolve(ir).stats
    live = [r for r in doc["rules"] if r.get("enabled", True)]  # a rule the user disabled or removed does not enforce
    top = [r for r in live if r["action"] == "block"] + [r for r in live if r["action"] != "block"]
    return {
        "sources_scanned": stats.files_scanned,
        "imperative_bearing": stats.imperative_bearing,
        "scan_only": stats.scan_only,
        "failed": stats.files_failed,
        "imperatives_found": stats.imperatives_found,
        "distilled": {label: stats.enforced[action] for label, action in (("block", "block"), ("ask", "ask"), ("advisory", "warn"))},
        "user_disabled": stats.user_disabled,
        "pass2_only": stats.pass2_only,
        "demoted": stats.demoted,
        "skipped": {k.removeprefix("skipped_"): v for k, v in stats.skip_counts.items()},
        "conflicts": stats.conflicts,
        "removed": stats.removed,
        "output": output,
        "review": review,
        "passes": {
            "pass1": stats.enforcing,
            "pass2": stats.policies,
            "cedar": doc["stats"].get("cedar_policies", 0),
            "interlinked": doc["stats"].get("interlinked_policies", 0),
            "pass3": stats.prose_entries,
            "skipped": stats.skipped,
        },
        "errors": [e["message"] for e in ir.errors],
        "top_rules": [
            {"id": r["id"], "where": f"{r['source']['file']}:{r['source']['lines'][0]}", "action": r["action"]}
            for r in top[:10]
        ],
    }


def _passes(passes: dict) -> list[str]:
    """The §15.8 three-pass section."""
    return [
        "Three passes:",
        f"  Pass 1 — deterministic     {passes['pass1']} (block/ask/warn in distilled-rules.json)",
        f"  Pass 2 — LLM policy gate   {passes['pass2']} (block/warn in <group>.policy.md)",
        f"    ├── Sondera-compat .cedar {passes['cedar']} (translates to vanilla Cedar)",
        f"    └── Interlinked .cedar    {passes['interlinked']} (requires schema extensions)",
        f"  Pass 3 — prose for review  {passes['pass3']} (definitions / principles for Tier 3)",
        f"  Skipped                    {passes['skipped']} (hedged / not imperative)",
    ]


def summary_text(data: dict) -> str:
    d = data["distilled"]
    skipped = data["skipped"]
    rows = [
        "Distilled-rules report",
        f"Sources scanned        {data['sources_scanned']} files",
        f"  imperative-bearing   {data['imperative_bearing']}",
        f"  scan-only            {data['scan_only']}",
        f"  could not be read    {data['failed']}",
        f"Imperatives found      {data['imperatives_found']}",
        "Distilled to:",
        f"  block                {d['block']} (MUST NOT / never / forbidden / shall not)",
        f"  ask                  {d['ask']} (should not / avoid / don't)",
        f"  advisory             {d['advisory']} (should / prefer / consider)",
        f"  Pass 2 only          {data['pass2_only']} (no concrete trigger, a sequential precondition, or demoted)",
        f"  demoted              {sum(data['demoted'].values())}"
        + (" (" + ", ".join(f"{n} {GATE_WORDS[g]}" for g, n in data["demoted"].items()) + ")" if data["demoted"] else ""),
        *_passes(data["passes"]),
        "Skipped:",
        f"  hedged               {skipped.get('hedged', 0)}",
        f"  not an instruction   {skipped.get('no_imperative', 0)}",
        f"Conflicts              {data['conflicts']}",
        f"Removed                {data['removed']}",
        f"User-disabled          {data['user_disabled']}",
        "",
        ("Review-mode output: " if data["review"] else "Output: ") + data["output"],
    ]
    if data["top_rules"]:
        rows += ["", "Top distilled rules:"]
        width = max(len(r["id"]) for r in data["top_rules"])
        for rule in data["top_rules"]:
            rows.append(f"  {ICONS.get(rule['action'], '·')} {rule['id']:<{width}}  {rule['where']}  {_LABELS.get(rule['action'], rule['action'])}")
    return "\n".join(rows) + "\n"
