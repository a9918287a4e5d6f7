"""Proof that every regex the harness will run is safe to run (issue 11, item 3).

The harness runs `new RegExp(regex, flags).test(value)` in V8 on every tool call,
with no timeout: a regex with catastrophic backtracking stalls every call. Each
regex of a Pass 1 rule (its patterns, `active_when.file_scope`,
`active_when.after_command.pattern`, OMP conditions) passes two checks:

1. A static analysis of Python's parse tree (the emitted regexes are in the
   JavaScript subset Python reads the same way): no unbounded repeat of a group
   that can match one string in several ways (nested quantifiers over
   overlapping characters, overlapping alternatives, an empty body), and no
   three or more unbounded quantifiers in a row over characters they can all
   match. A regex Python cannot parse, or that uses a Python-only escape, is
   not proven safe.
2. A timed trial in Node.js, one process for every regex of a run: each regex is
   tested on adversarial strings of ATTACK_LENGTH characters built from its own
   characters, and must finish every test within BUDGET_MS of CPU time (a hard
   stop interrupts it after HARD_STOP_MS). Without Node.js only the static
   analysis runs.

A regex that fails either check keeps its rule out of Pass 1 (the caller routes
it to Pass 2 with the reason); it never stops the run.
"""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from re import _constants as C  # noqa: N812 (the sre opcodes)
from re import _parser

from . import forked

ATTACK_LENGTH = 10_000
BUDGET_MS = 250  # linear regexes take about 1 ms here, quadratic ones about 100 ms, worse ones seconds
HARD_STOP_MS = 1_000
WORKER_MIN_TESTS = 500  # fewer tests run faster under a vm timeout each than a worker thread starts
_UNBOUNDED = 16  # a repeat allowing this many or more is treated as unbounded
_CHAIN = 3  # this many unbounded quantifiers in a row over shared characters: polynomial blow-up
_UNIVERSE = tuple(chr(i) for i in range(128)) + ("é", "ß", "\u00a0", "\u2028", "\u212a", "中", "😀")
_PREFERRED = "a0/ .-_eA"
_JS_SPACE = frozenset(" \t\n\r\v\f\u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff") | frozenset(map(chr, range(0x2000, 0x200b)))
_PY_ONLY = re.compile(r"\\N\{")

_TRIAL = r"""
// Each regex is tested on attack strings; a test stopped after STOP ms, or taking over BUDGET ms of CPU, is its
// problem. Few tests run here, each under a vm timeout; many run in one worker thread, which this thread stops
// once a test has run STOP ms (a vm timeout starts a watchdog thread per test: two thirds of a large trial's
// CPU), a new worker going on with the next regex. Each line of input is one list of jobs; each line of output
// its verdicts, in order, so one process serves every trial of the Python process that started it.
const {Worker} = require('worker_threads');
const [N, BUDGET, STOP, WORKER_MIN] = %s;
const VERDICT = `(test) => (regex, flags, seeds, suffixes) => {
  let re;
  try { re = new RegExp(regex, flags); } catch (e) { return 'JavaScript rejects it: ' + e.message; }
  for (const seed of seeds) {
    const body = seed.repeat(Math.ceil(N / seed.length)).slice(0, N);
    for (const suffix of suffixes) {
      const before = process.cpuUsage();
      try { test(re, body + suffix); }
      catch (e) { return 'did not finish within ' + STOP + ' ms on a ' + N + '-character input'; }
      const used = process.cpuUsage(before);
      const ms = (used.user + used.system) / 1000;
      if (ms > BUDGET) return 'took ' + Math.round(ms) + ' ms on a ' + N + '-character input (the bound is ' + BUDGET + ' ms)';
    }
  }
  return '';
}`;
const TRY = `
const {workerData: {jobs, from, N, BUDGET, STOP, progress}, parentPort} = require('worker_threads');
const verdict = (${VERDICT})((re, s) => {
  Atomics.add(progress, 1, 1);  // odd while a test runs
  try { re.test(s); } finally { Atomics.add(progress, 1, 1); }
});
for (let k = from; k < jobs.length; k++) {
  Atomics.store(progress, 0, k);
  parentPort.postMessage([k, verdict(...jobs[k])]);
}`;
const vm = require('vm');
const ctx = vm.createContext({r: null, s: ''});
const script = new vm.Script('r.test(s)');
const inVm = eval(VERDICT)((re, s) => { ctx.r = re; ctx.s = s; script.runInContext(ctx, {timeout: STOP}); });
const tryAll = (jobs, reply) => {
  const tests = jobs.reduce((sum, [, , seeds, suffixes]) => sum + seeds.length * suffixes.length, 0);
  if (tests < WORKER_MIN) {
    reply(jobs.map((job) => inVm(...job)));
    return;
  }
  const out = jobs.map(() => null);
  let worker = null, progress = null, seen = -1, since = 0, replied = false;  // progress: [regex being tried, test starts and ends]
  const finish = () => {
    if (replied) return true;
    if (out.includes(null)) return false;
    replied = true;
    clearInterval(watch);
    worker.terminate();
    reply(out);
    return true;
  };
  const start = () => {
    const from = out.indexOf(null);
    progress = new Int32Array(new SharedArrayBuffer(8));  // a worker's own: one being stopped cannot touch the next one's
    progress[0] = from;
    seen = -1;
    worker = new Worker(TRY, {eval: true, workerData: {jobs, from, N, BUDGET, STOP, progress}});
    worker.on('message', ([k, verdict]) => { if (out[k] === null) out[k] = verdict; finish(); });
    worker.on('error', (e) => { throw e; });
  };
  const watch = setInterval(() => {
    const now = Date.now(), count = Atomics.load(progress, 1);
    if (count !== seen || count %% 2 === 0) { seen = count; since = now; return; }
    if (now - since < STOP) return;
    worker.terminate();
    out[Atomics.load(progress, 0)] = `did not finish within ${STOP} ms on a ${N}-character input`;
    if (!finish()) start();
  }, 5);
  start();
};
const waiting = [];
let busy = false;
const next = () => {
  if (busy || !waiting.length) return;
  busy = true;
  tryAll(waiting.shift(), (verdicts) => {
    process.stdout.write(JSON.stringify(verdicts) + '\n');
    busy = false;
    next();
  });
};
require('readline').createInterface({input: process.stdin}).on('line', (line) => { waiting.push(JSON.parse(line)); next(); });
"""

# (regex, flags) -> '' or the problem: each regex is analysed and tried once per process
_static: dict[tuple[str, str], str] = {}
_tried: dict[tuple[str, str], str] = {}


def _py_flags(flags: str) -> int:
    return (re.IGNORECASE if "i" in flags else 0) | (re.DOTALL if "s" in flags else 0) | (re.MULTILINE if "m" in flags else 0)


def _parse(regex: str, flags: str):
    return _parser.parse(regex, _py_flags(flags))


# --- character sets over a small universe of representative characters ---

@cache
def _category(cat) -> frozenset[str]:
    tests = {
        C.CATEGORY_DIGIT: lambda c: "0" <= c <= "9", C.CATEGORY_NOT_DIGIT: lambda c: not "0" <= c <= "9",
        C.CATEGORY_SPACE: lambda c: c in _JS_SPACE, C.CATEGORY_NOT_SPACE: lambda c: c not in _JS_SPACE,
        C.CATEGORY_WORD: lambda c: c.isascii() and (c.isalnum() or c == "_"),
        C.CATEGORY_NOT_WORD: lambda c: not (c.isascii() and (c.isalnum() or c == "_")),
    }
    test = tests.get(cat, lambda c: True)
    return frozenset(c for c in _UNIVERSE if test(c))


# char -> the characters of the universe whose lower or upper case it is ("k": "K", "k", "\u212a")
_CASES: dict[str, frozenset[str]] = {}
for _c in _UNIVERSE:
    for _key in {_c, _c.lower(), _c.upper()}:
        _CASES[_key] = _CASES.get(_key, frozenset()) | {_c}


def _fold(chars: frozenset[str], ignore_case: bool) -> frozenset[str]:
    """Under the i flag: every character of the universe that is, or has a case in, `chars`."""
    if not ignore_case:
        return chars
    return frozenset().union(*(_CASES.get(c, ()) for c in chars))


def _single(op, av, state) -> frozenset[str] | None:
    """The characters one single-character item matches; None for any other item."""
    if op is C.LITERAL:
        chars = frozenset({chr(av)}) if chr(av) in _UNIVERSE else frozenset({"\0"})
    elif op is C.NOT_LITERAL:
        chars = frozenset(c for c in _UNIVERSE if c != chr(av))
    elif op is C.ANY:
        return frozenset(c for c in _UNIVERSE if state.dotall or c not in "\n\r\u2028\u2029")
    elif op is C.IN:
        negate = bool(av) and av[0][0] is C.NEGATE
        chars = frozenset()
        for sub_op, sub_av in av[1:] if negate else av:
            if sub_op is C.LITERAL:
                chars |= {chr(sub_av)}
            elif sub_op is C.RANGE:
                chars |= {c for c in _UNIVERSE if sub_av[0] <= ord(c) <= sub_av[1]}
            elif sub_op is C.CATEGORY:
                chars |= _category(sub_av)
            else:  # NOT_LITERAL and other rare forms: anything
                chars |= set(_UNIVERSE)
        chars = _fold(frozenset(chars), state.ignore_case)
        return frozenset(_UNIVERSE) - chars if negate else chars
    else:
        return None
    return _fold(chars, state.ignore_case)


class _State:
    def __init__(self, flags: int):
        self.ignore_case = bool(flags & re.IGNORECASE)
        self.dotall = bool(flags & re.DOTALL)


def _consumed(items, state) -> frozenset[str]:
    """Every character a subpattern can consume (lookarounds consume none)."""
    chars: set[str] = set()
    for op, av in items:
        single = _single(op, av, state)
        if single is not None:
            chars |= single
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
            chars |= _consumed(av[2], state)
        elif op is C.SUBPATTERN or op is C.ATOMIC_GROUP:
            chars |= _consumed(av[-1], state)
        elif op is C.BRANCH:
            for branch in av[1]:
                chars |= _consumed(branch, state)
        elif op is C.GROUPREF_EXISTS:
            chars |= _consumed(av[1], state) | (_consumed(av[2], state) if av[2] else set())
        elif op is C.GROUPREF:
            chars |= set(_UNIVERSE)
    return frozenset(chars)


def _nullable(items) -> bool:
    for op, av in items:
        if op in (C.AT, C.ASSERT, C.ASSERT_NOT):
            continue
        if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
            if av[0] > 0 and not _nullable(av[2]):
                return False
        elif op is C.SUBPATTERN or op is C.ATOMIC_GROUP:
            if not _nullable(av[-1]):
                return False
        elif op is C.BRANCH:
            if not any(_nullable(b) for b in av[1]):
                return False
        else:
            return False
    return True


def _first(items, state) -> frozenset[str]:
    """The characters a subpattern can start with (its whole set where it may be empty)."""
    chars: set[str] = set()
    for index, (op, av) in enumerate(items):
        if op in (C.AT, C.ASSERT, C.ASSERT_NOT):
            continue
        single = _single(op, av, state)
        if single is not None:
            return frozenset(chars | single)
        if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
            chars |= _first(av[2], state)
        elif op is C.SUBPATTERN or op is C.ATOMIC_GROUP:
            chars |= _first(av[-1], state)
        elif op is C.BRANCH:
            for branch in av[1]:
                chars |= _first(branch, state)
        else:
            return frozenset(set(_UNIVERSE))
        if not _nullable(items[index : index + 1]):
            return frozenset(chars)
    return frozenset(chars)


def _unbounded(op, av) -> bool:
    return op in (C.MAX_REPEAT, C.MIN_REPEAT) and (av[1] is C.MAXREPEAT or av[1] >= _UNBOUNDED)


def _flatten(items):
    """Plain groups and optional parts inlined: the sequence the matcher walks."""
    for op, av in items:
        if op is C.SUBPATTERN:
            yield from _flatten(av[-1])
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT) and av[1] is not C.MAXREPEAT and av[1] <= 1:
            yield from _flatten(av[2])
        else:
            yield op, av


# Two findings over-approximate: alternatives of a repeated group that share a first character,
# or that hold a quantifier, are harmless whenever each alternative ends at a character the next
# cannot start with (`(?:-\S*\s+|sudo\s+)*`). With Node.js they are suspicions the timed
# trial settles; without it they count as problems.
_OVERLAPPING_ALTERNATIVES = "a repeated group has alternatives that match the same characters"
_REPEATED_ALTERNATIVE = "a repeated group holds a repeated alternative (nested quantifiers)"
SUSPICIONS = frozenset({_OVERLAPPING_ALTERNATIVES, _REPEATED_ALTERNATIVE})


def _loop_problem(body, state) -> str:
    """Why repeating `body` without bound can backtrack catastrophically ('' when it cannot)."""
    if _nullable(body):
        return "a repeated group can match the empty string"
    flat = list(_flatten(body))
    loop_first = _first(body, state)
    for index, (op, av) in enumerate(flat):
        if op is C.BRANCH:
            firsts = [_first(b, state) for b in av[1]]
            if any(a & b for i, a in enumerate(firsts) for b in firsts[i + 1 :]):
                return _OVERLAPPING_ALTERNATIVES
            if any(_repeats(b) for b in av[1]):
                return _REPEATED_ALTERNATIVE
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT) and (av[1] is C.MAXREPEAT or av[1] > 1):
            rest = flat[index + 1 :]
            follow = _first(rest, state) | (loop_first if _nullable(rest) else frozenset())
            if _consumed(av[2], state) & follow:
                return "nested quantifiers over overlapping characters (catastrophic backtracking)"
    return ""


def _repeats(items) -> bool:
    return any(op in (C.MAX_REPEAT, C.MIN_REPEAT) and (av[1] is C.MAXREPEAT or av[1] > 1) or
               (op is C.SUBPATTERN and _repeats(av[-1])) for op, av in items)


def _sequence_problem(items, state) -> str:
    """Nested loops anywhere below `items`, or a chain of adjacent overlapping quantifiers in it."""
    chain, region = 0, None
    gaps: list[frozenset[str]] = []
    for op, av in _flatten(items):
        if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
            if problem := (_loop_problem(av[2], state) if _unbounded(op, av) else "") or _sequence_problem(av[2], state):
                return problem
        elif op is C.BRANCH:
            for branch in av[1]:
                if problem := _sequence_problem(branch, state):
                    return problem
        elif op in (C.ASSERT, C.ASSERT_NOT):
            if problem := _sequence_problem(av[1], state):
                return problem
            continue
        elif op is C.AT:
            continue
        if _unbounded(op, av):
            chars = _consumed(av[2], state)
            if region is not None and chars & region and all(g & chars for g in gaps):
                chain, region = chain + 1, region & chars
            else:
                chain, region = 1, chars
            gaps = []
            if chain >= _CHAIN:
                return f"{chain} unbounded quantifiers in a row over characters they can all match (polynomial backtracking)"
            continue
        chars = _consumed([(op, av)], state)
        if region is not None and chars & region:
            gaps.append(chars)
        else:
            chain, region, gaps = 0, None, []
    return ""


# A repeated group of plain alternatives, as written: Python's parser folds `(?:.|.)` into one class, V8 does not.
_REPEATED_ALTERNATION = re.compile(r"\((?:\?:)?((?:[^()\\]|\\.)*\|(?:[^()\\]|\\.)*)\)(?:[*+]|\{\d+,\d*\})")
_BAR = re.compile(r"(?<!\\)\|")


def _written_alternation_problem(regex: str, state: _State) -> str:
    for m in _REPEATED_ALTERNATION.finditer(regex):
        try:
            firsts = [_first(list(_parse(branch, "")), state) for branch in _BAR.split(m.group(1))]
        except (re.error, RecursionError, OverflowError):
            continue
        if any(not f for f in firsts) or any(a & b for i, a in enumerate(firsts) for b in firsts[i + 1 :]):
            return "a repeated group has alternatives that match the same characters"
    return ""


def static_problem(regex: str, flags: str = "i") -> str:
    """'' when the parse tree shows no catastrophic backtracking, else why not."""
    if _PY_ONLY.search(regex):
        return "uses the Python-only escape \\N{…}, which JavaScript does not read"
    try:
        tree = _parse(regex, flags)
    except (re.error, RecursionError, OverflowError) as exc:
        return f"cannot be analysed: {exc}"
    state = _State(tree.state.flags)
    return _sequence_problem(list(tree), state) or _written_alternation_problem(regex, state)


def _attack(regex: str, flags: str) -> tuple[list[str], list[str]]:
    """Seeds (repeated to ATTACK_LENGTH characters) and suffixes built from the regex's own characters."""
    state = _State(_py_flags(flags))
    alphabet: list[str] = []
    runs: list[str] = []
    run = ""

    def walk(items):
        nonlocal run
        for op, av in items:
            single = _single(op, av, state)
            if single is not None:
                pick = next((c for c in _PREFERRED if c in single), min(single) if single else "")
                if pick and pick not in alphabet:
                    alphabet.append(pick)
                run += pick if op is C.LITERAL else ""
                if op is not C.LITERAL and run:
                    runs.append(run)
                    run = ""
                continue
            if run:
                runs.append(run)
                run = ""
            if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
                walk(av[2])
            elif op is C.SUBPATTERN or op is C.ATOMIC_GROUP:
                walk(av[-1])
            elif op is C.BRANCH:
                for branch in av[1]:
                    walk(branch)
            elif op in (C.ASSERT, C.ASSERT_NOT):
                walk(av[1])

    try:
        walk(list(_parse(regex, flags)))
    except (re.error, RecursionError, OverflowError):
        alphabet = list(dict.fromkeys(c for c in regex if c.isprintable()))
    if run:
        runs.append(run)
    seeds = list(dict.fromkeys([*alphabet[:6], *[r for r in runs if len(r) > 1][:3], "".join(alphabet[:6]) or "a"]))
    return [s for s in seeds if s], ["!", "\n"]


TRIAL_SHARE_MIN = 64  # fewer regexes than this per extra Node.js process: its start-up costs more than it saves


def trial(pairs: list[tuple[str, str]]) -> list[str] | None:
    """The Node.js timed trial for each (regex, flags): '' or the problem; None without Node.js.

    Many regexes are shared out among one Node.js process per core (the trial is CPU-bound in V8);
    each regex's verdict is the same whichever process tries it."""
    node = shutil.which("node")
    if node is None:
        return None
    if not pairs:
        return []
    jobs = [[regex, flags, *_attack(regex, flags)] for regex, flags in pairs]
    count = max(1, min(forked.helpers(), len(jobs) // TRIAL_SHARE_MIN))
    if count == 1:
        return _trial_share(node, jobs)
    with ThreadPoolExecutor(count) as pool:  # each thread waits on its Node.js process
        shares = list(pool.map(lambda k: _trial_share(node, jobs[k::count], k), range(count)))
    found = [""] * len(jobs)
    for k, share in enumerate(shares):
        found[k::count] = share
    return found


def _trial_script() -> str:
    return _TRIAL % json.dumps([ATTACK_LENGTH, BUDGET_MS, HARD_STOP_MS, WORKER_MIN_TESTS])


class _NodeTrial:
    """One Node.js process that tries job lists, one line each way, kept for the process that started it
    (a Node.js start-up costs about 0.1 s: most of a small compile, and of a test suite of small compiles)."""

    def __init__(self, node: str):
        self.node, self.owner, self.script = node, os.getpid(), _trial_script()
        self.process = subprocess.Popen([node, "-e", self.script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True)

    def usable(self, node: str) -> bool:
        """Started by this process, with these bounds, and still running."""
        return (self.node, self.owner, self.script) == (node, os.getpid(), _trial_script()) and self.process.poll() is None

    def run(self, jobs: list[list]) -> list[str]:
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(json.dumps(jobs) + "\n")
        self.process.stdin.flush()
        timeout = 60 + len(jobs) * HARD_STOP_MS / 1000
        if not select.select([self.process.stdout], [], [], timeout)[0]:
            raise subprocess.TimeoutExpired(self.node, timeout)
        line = self.process.stdout.readline()
        if not line:
            raise OSError(f"Node.js exited with status {self.process.wait()}")
        return json.loads(line)

    def stop(self) -> None:
        if self.owner == os.getpid():
            self.process.kill()
            self.process.wait()


_node_trials: dict[int, _NodeTrial] = {}  # share number -> its Node.js process


def stop_node_trials() -> None:
    """Stop the Node.js processes this process keeps (they also stop by themselves when it exits)."""
    while _node_trials:
        _node_trials.popitem()[1].stop()


def _trial_share(node: str, jobs: list[list], share: int = 0) -> list[str]:
    kept = _node_trials.get(share)
    try:
        if kept is None or not kept.usable(node):
            if kept is not None:
                kept.stop()  # (another process's, or with other bounds)
            kept = _node_trials[share] = _NodeTrial(node)
        return kept.run(jobs)
    except (subprocess.SubprocessError, ValueError, OSError) as exc:
        if kept is not None:
            kept.stop()
            _node_trials.pop(share, None)
        return [f"the Node.js trial could not run: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"] * len(jobs)


def problems(pairs: list[tuple[str, str]], use_node: bool = True) -> list[str]:
    """For each (regex, flags): '' when proven safe, else the first problem found.

    A static problem is final, except a suspicion (SUSPICIONS), which the Node.js
    trial settles; every regex without a final static problem is tried. When the
    trial cannot run (no Node.js) a suspicion counts as a problem; with
    `use_node=False` (the static analysis only) it does not.
    """
    unique = list(dict.fromkeys(pairs))
    for pair in unique:
        if pair not in _static:
            _static[pair] = static_problem(*pair)
    final = {p: _static[p] for p in unique if _static[p] and _static[p] not in SUSPICIONS}
    results = None
    if use_node:
        untried = [p for p in unique if p not in final and p not in _tried]
        results = trial(untried)
        if results is not None:
            _tried.update(zip(untried, results))
    if not use_node:  # the static analysis only: a suspicion is left to the trial that was not asked for
        return [final.get(p) or _tried.get(p, "") for p in pairs]
    tried = results is not None or all(p in _tried for p in unique if p not in final)
    return [final.get(p) or (_tried.get(p, "") if tried else _static[p]) for p in pairs]


def analysed() -> dict[tuple[str, str], str]:
    """The static analysis of every regex this process analysed, for another process to `remember`."""
    return dict(_static)


def remember(verdicts: dict[tuple[str, str], str]) -> None:
    """Take the static analyses another process of this run made (`analysed`): none is made twice."""
    _static.update(verdicts)


def vouch(pairs: list[tuple[str, str]]) -> None:
    """Record regexes proven by an earlier run of this same compiler (a sealed cache): not tried again here.
    The static analysis still runs on them wherever `problems` is asked."""
    for pair in pairs:
        _tried.setdefault(pair, "")


def rule_regexes(patterns: list[dict], scope: dict) -> list[tuple[str, str, str]]:
    """(what, regex, flags) for every regex the harness runs for a rule."""
    found = [("pattern", p["regex"], str(p.get("flags", "i"))) for p in patterns if isinstance(p, dict) and isinstance(p.get("regex"), str)]
    if isinstance(scope.get("file_scope"), str) and scope["file_scope"]:
        found.append(("file_scope", scope["file_scope"], "i"))
    after = scope.get("after_command")
    if isinstance(after, dict) and isinstance(after.get("pattern"), str):
        found.append(("after_command.pattern", after["pattern"], "i"))
    return found
