"""`policyc check` throughput: the GuardRule evaluator against cedarpy on the same events.

    python benchmarks/check_throughput.py [--events 100000] [--rules 500] [--corpus DIR]

Compiles the real corpus (replicated under copyNNNN/ folders until it yields
at least --rules Pass 1 rules), builds --events PreToolUse events (shell
commands and file writes drawn from the rules' own commands and paths, the
labelled sample's inputs, and everyday commands that match nothing), and in
one run evaluates them with policyc's evaluator (one call per event, each
timed) and with cedarpy on the emitted Sondera v1 Cedar (one batch call).
Prints events per second for both, the ratio, and the evaluator's median
time per event. Targets: ratio >= 20 and a median under 10 microseconds.
Always exits 0: a benchmark, not a test.
"""

from __future__ import annotations

import argparse
import csv
import random
import statistics
import sys
import time
from pathlib import Path

import cedarpy
import yaml
from policyc.compiler.harness import Evaluator
from policyc.compiler.pipeline import compile_sources
from policyc.compiler.sondera import request
from policyc.compiler.sources import source_from_bytes
from policyc.emitters import cedar, guardrules

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = HERE.parents[1] / "shared" / "corpus"
EVERYDAY = ["ls -la", "git status", "npm test", "cat README.md", "pytest -q", "git diff HEAD", "make build",
            "cd src && ls", "echo done", "git log --oneline | head", "rg TODO src/", "docker ps"]


def compile_corpus(corpus: Path, minimum: int):
    with open(corpus / "MANIFEST.tsv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    files = [(row["path"], (corpus / "files" / row["file"]).read_bytes()) for row in rows]
    copies = 1
    while True:
        sources = [source_from_bytes(f"copy{n:04d}/{path}", data) for n in range(copies) for path, data in files]
        ir = compile_sources(sources)
        rules = guardrules.emit(ir)["rules"]
        if len(rules) >= minimum:
            return ir, rules
        copies += 1


def build_events(rules: list[dict], count: int, rng: random.Random) -> list[dict]:
    sample = yaml.safe_load((HERE.parent / "tests" / "data" / "labelled_sample.yaml").read_text(encoding="utf-8"))
    commands, paths = list(EVERYDAY), ["src/app.py", "README.md", "docs/guide.md"]
    for rule in rules:
        for pattern in rule["patterns"]:
            if pattern["field"] == "command":
                commands.append(rule["source"]["quote"].split("`")[1] if rule["source"]["quote"].count("`") >= 2 else "git push origin main")
    for entry in sample:
        for value in entry.get("must_match", []) + entry.get("must_not_match", []):
            (commands if entry.get("field") == "command" else paths).append(value)
    events = []
    for _ in range(count):
        if rng.random() < 0.8:
            events.append({"tool_name": "Bash", "tool_input": {"command": rng.choice(commands)}, "session_id": "s", "cwd": "/repo"})
        else:
            events.append({"tool_name": rng.choice(["Edit", "Write"]), "tool_input": {"file_path": "/repo/" + rng.choice(paths).lstrip("/"),
                                                                                       "content": "x = 1\n"}, "session_id": "s", "cwd": "/repo"})
    return events


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--rules", type=int, default=500)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    args = parser.parse_args()
    ir, rules = compile_corpus(args.corpus, args.rules)
    rules = rules[: args.rules]
    events = build_events(rules, args.events, random.Random(7))

    evaluator = Evaluator(rules)
    timings = []
    clock = time.perf_counter_ns
    start = time.perf_counter()
    for event in events:
        t0 = clock()
        evaluator.evaluate(event)
        timings.append(clock() - t0)
    ours = time.perf_counter() - start

    policies = '@id("default-permit")\npermit (principal, action, resource);\n' + "".join(cedar.emit(ir, "sondera-v1").values())
    requests = [r for r in map(request, events) if r is not None]
    start = time.perf_counter()
    cedarpy.is_authorized_batch(requests, policies, [])
    theirs = time.perf_counter() - start

    ours_rate, theirs_rate = len(events) / ours, len(requests) / theirs
    median_us = statistics.median(timings) / 1000
    ratio = ours_rate / theirs_rate
    print(f"{len(events)} events, {len(rules)} rules ({policies.count('forbid (')} Cedar policies)")
    print(f"policyc check   {ours_rate:>12,.0f} events/s   median {median_us:.2f} µs/event")
    print(f"cedarpy         {theirs_rate:>12,.0f} events/s   (one batch call)")
    print(f"ratio {ratio:.1f} (target >= 20): {'OK' if ratio >= 20 else 'MISSED'}; "
          f"median {median_us:.2f} µs (target < 10): {'OK' if median_us < 10 else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
