"""Work shared out among processes gives what one process gives: extraction (the same IR, errors and
limits) and the Node.js regex trial (each verdict in its place)."""

from __future__ import annotations

import gc
import os
import shutil
import threading
import time

import pytest
from conftest import CORPUS, corpus_manifest
from policyc.compiler import checks, extract, forked, pipeline, regex_safety, writer
from policyc.compiler.jsontext import encode
from policyc.compiler.pipeline import compile_sources, extract_all
from policyc.compiler.sources import source_from_bytes
from policyc.emitters import artifacts


@pytest.fixture(scope="module")
def corpus_sources():
    return [source_from_bytes(f"{row['repo'].replace('/', '__')}/{row['path']}", (CORPUS / "files" / row["file"]).read_bytes())
            for row in corpus_manifest()]


@pytest.fixture(autouse=True)
def fixed_time(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")


def test_the_corpus_compiles_and_renders_the_same_in_any_number_of_processes(corpus_sources):
    serial = compile_sources(corpus_sources, workers=1)
    files = list(artifacts(serial, workers=1).items())
    for workers in (2, 3):
        parallel = compile_sources(corpus_sources, workers=workers)
        assert parallel.dumps() == serial.dumps()
        assert list(artifacts(parallel, workers=workers).items()) == files  # groups rendered in runs: same files, same order


def test_reused_and_new_sources_mix_as_in_one_process(corpus_sources):
    """The incremental path: sources unchanged since a sealed IR are reused, only the rest is read."""
    previous = compile_sources(corpus_sources, workers=1)
    edited = [source_from_bytes(s.file, (s.text + "\nNever run `make deploy`.\n").encode()) if i % 3 == 0 else s
              for i, s in enumerate(corpus_sources)]
    serial = compile_sources(edited, previous=previous, reuse=True, workers=1)
    assert compile_sources(edited, previous=previous, reuse=True, workers=2).dumps() == serial.dumps()


def _failing(monkeypatch, failing: set[str]):
    """Extraction finds more imperatives than the limit in the files of `failing`."""
    run = extract.Extractor.run

    def over_limit(self):
        run(self)
        if self.source.file in failing:
            self.imperatives = [None] * (pipeline.MAX_IMPERATIVES_PER_FILE + 1)

    monkeypatch.setattr(extract.Extractor, "run", over_limit)


def test_a_file_over_a_limit_fails_alone_whichever_process_reads_it(corpus_sources, monkeypatch):
    by_size = sorted(corpus_sources, key=lambda s: len(s.text))
    failing = {by_size[-1].file, by_size[-2].file, by_size[0].file}  # the two largest go to different processes
    _failing(monkeypatch, failing)
    serial = compile_sources(corpus_sources, workers=1)
    parallel = compile_sources(corpus_sources, workers=2)
    assert sorted(e["file"] for e in parallel.errors) == sorted(failing)
    assert parallel.errors == serial.errors and all("over the limit" in e["message"] for e in parallel.errors)
    assert parallel.dumps() == serial.dumps()


def test_the_time_limit_stops_one_file_in_a_child_process(monkeypatch):
    sources = [source_from_bytes(f"{n}/AGENTS.md", (f"# {n}\n\n" + "Never run `make deploy`.\n" * size).encode())
               for n, size in (("big", 40), ("small", 1), ("other", 2))]
    monkeypatch.setattr(pipeline, "MAX_SECONDS_PER_FILE", 2.0)  # not machine speed: the slow file sleeps 60 s
    run = extract.Extractor.run

    def slow_for_small(self):  # "small" reads for a minute; the limit stops it wherever it is read
        if self.source.file == "small/AGENTS.md":
            assert os.getpid() != parent  # it is in the child's share
            time.sleep(60)
        run(self)

    parent = os.getpid()
    monkeypatch.setattr(extract.Extractor, "run", slow_for_small)
    outcomes = extract_all(sources, {}, workers=2)
    assert isinstance(outcomes[1], pipeline.SourceError) and "the limit for one file" in str(outcomes[1])
    assert [len(o[0]) for o in (outcomes[0], outcomes[2])] == [40, 2]


def test_a_child_that_dies_has_its_share_read_again(corpus_sources, monkeypatch):
    serial = compile_sources(corpus_sources, workers=1)
    parent, run = os.getpid(), extract.Extractor.run

    def dies_in_a_child(self):
        if os.getpid() != parent:
            os._exit(9)
        run(self)

    monkeypatch.setattr(extract.Extractor, "run", dies_in_a_child)
    assert compile_sources(corpus_sources, workers=2).dumps() == serial.dumps()


def test_a_crash_in_a_child_raises_here_as_in_one_process(corpus_sources, monkeypatch):
    target = sorted(corpus_sources, key=lambda s: len(s.text))[-2].file  # in the child's share
    run = extract.Extractor.run

    def crash(self):
        if self.source.file == target:
            raise ValueError(f"a bug reading {self.source.file}")
        run(self)

    monkeypatch.setattr(extract.Extractor, "run", crash)
    with pytest.raises(ValueError, match="a bug reading"):
        compile_sources(corpus_sources, workers=2)
    regex_safety.stop_node_trials()  # the Node.js trial kept for this process: the only child meant to stay
    with pytest.raises(ChildProcessError):  # and no forked child is left behind
        os.waitpid(-1, os.WNOHANG)


def test_little_text_is_read_in_one_process(corpus_sources, monkeypatch):
    forks = []
    monkeypatch.setattr(forked, "_fork", lambda work, shares: forks.append(shares) or [])
    extract_all(corpus_sources[:3], {})
    assert forks == []


def test_shares_are_balanced_and_cover_every_item_once():
    sizes = [5, 80, 3, 3, 40, 41, 7, 1, 60]
    shares = forked.balanced(list(range(len(sizes))), lambda i: sizes[i], 3)
    assert sorted(i for share in shares for i in share) == list(range(len(sizes))) and all(s == sorted(s) for s in shares)
    loads = [sum(sizes[i] for i in share) for share in shares]
    assert max(loads) - min(loads) <= max(sizes)
    runs = forked.contiguous(list(range(len(sizes))), lambda i: sizes[i], 3)
    assert [i for run in runs for i in run] == list(range(len(sizes))) and len(runs) == 3


def test_the_regex_trial_shared_among_node_processes_keeps_each_verdict_in_its_place(monkeypatch):
    assert shutil.which("node"), "Node.js is on PATH in this project's environment"
    monkeypatch.setattr(regex_safety, "TRIAL_SHARE_MIN", 1)  # one process per core, whatever the count
    python_only_group, quadratic, safe = r"(?P<x>a)", r"[^/]*e[^/]*\.zz$", r"^(?=.*(?:^|/)src/)(?=.*\.ts$)"
    verdicts = regex_safety.trial([(safe, "i"), (python_only_group, "i"), (safe + "x", "i"), (quadratic, "i"), (safe + "y", "i")])
    assert verdicts[1].startswith("JavaScript rejects it") and "10000-character input" in verdicts[3]
    assert verdicts[0::2] == ["", "", ""]


def test_the_checks_in_a_forked_process_give_what_they_give_here(corpus_sources, monkeypatch):
    """planned_artifacts with the §12 checks forked while the Cedar files are validated: the same
    result, passing or failing (a failing run reports no Cedar failure and writes nothing)."""
    ir = compile_sources(corpus_sources, workers=1)
    here = writer.planned_artifacts(ir, "sondera-v2")
    monkeypatch.setattr(writer, "BACKGROUND_MIN_RULES", 0)
    assert writer.planned_artifacts(ir, "sondera-v2") == here and here[2] is not None
    monkeypatch.setattr(checks, "MAX_OUTPUT_BYTES", 1000)  # every run over the size limit: inherited by the child
    failing = writer.planned_artifacts(ir, "sondera-v2")
    assert failing[2] is None and failing[1] == [f"-: output is {len(encode(here[0]))} bytes, over 2 MB"]
    monkeypatch.setattr(writer, "BACKGROUND_MIN_RULES", 10**9)
    assert writer.planned_artifacts(ir, "sondera-v2") == failing


def test_a_background_child_that_dies_is_worked_here_again():
    job = forked.Background(lambda: os.getpid(), fork=True)
    assert job.forked and job.result() != os.getpid()
    dying = forked.Background(lambda: os._exit(3), fork=True)
    dying._work = lambda: "here"  # the child exits without a word; the parent works it itself
    assert dying.result() == "here" and not dying.forked
    stopped = forked.Background(lambda: time.sleep(60), fork=True)
    stopped.close()  # a result no longer wanted: the child is stopped and reaped
    assert not stopped.forked


def test_shares_worked_at_once_divide_the_cores_for_helper_processes():
    cores = len(os.sched_getaffinity(0))
    assert forked.shared(lambda share: forked.helpers(), [[1], [2]]) == [max(1, cores // 2)] * 2  # one Node.js each on two cores
    assert forked.helpers() == cores


def test_the_collector_thresholds_come_back_after_a_run(corpus_sources):
    before = gc.get_threshold()
    compile_sources(corpus_sources[:3], workers=1)
    assert gc.get_threshold() == before


def test_a_process_with_other_threads_does_not_fork_by_itself():
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert forked.cores() == 1
    finally:
        stop.set()
        other.join()
