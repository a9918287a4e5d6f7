"""Sources: targets, remote fetching, discovery, scoping, incremental runs, review mode."""

from __future__ import annotations

import hashlib
import json
import urllib.request

import pytest
from conftest import make_project
from policyc.compiler import cli, verbs
from policyc.compiler.pipeline import compile_paths
from policyc.compiler.remote import RemoteError, _AllowlistRedirects, check_url, resolve
from policyc.compiler.targets import discover, expand


def _project(tmp_path, files: dict[str, str], interlinked=True):
    return make_project(tmp_path, files, interlinked)


def _rules(root):
    return json.loads((root / ".interlinked" / "distilled-rules.json").read_text())


# --- targets (§1) ---

def test_file_folder_and_glob_targets(tmp_path, monkeypatch):
    root = _project(tmp_path, {"AGENTS.md": "Never run `alpha`.\n", "docs/x.md": "Never run `bravo`.\n", "docs/y.txt": "Never run `charlie`.\n"})
    monkeypatch.chdir(root)
    assert [p.name for p in expand(["AGENTS.md"], root).paths] == ["AGENTS.md"]
    assert [p.name for p in expand(["docs"], root).paths] == ["x.md"]
    assert [p.name for p in expand(["**/*.md"], root).paths] == ["AGENTS.md", "x.md"]


def test_outside_root_and_symlink_escape_are_refused(tmp_path, monkeypatch):
    root = _project(tmp_path, {"AGENTS.md": "Never run `alpha`.\n"})
    outside = tmp_path / "secret.md"
    outside.write_text("Never run `bravo`.\n")
    (root / "link.md").symlink_to(outside)
    monkeypatch.chdir(root)
    errors = expand([str(outside), "link.md"], root).errors
    assert len(errors) == 2 and all("outside the current project" in e for e in errors)


def test_shorthand_resolves_in_order_and_urls_stay_on_the_allowlist():
    asked = []

    def fetcher(url):
        asked.append(url)
        if url.endswith("tdd/SKILL.md"):
            raise RemoteError("HTTP 404")
        return b"Never run `rm -rf /`.\n"

    remote = resolve("mattpocock/skills/tdd", fetcher)
    assert asked == ["https://raw.githubusercontent.com/mattpocock/skills/HEAD/tdd/SKILL.md",
                     "https://raw.githubusercontent.com/mattpocock/skills/HEAD/tdd"]
    assert remote.group_id == "gh:mattpocock/skills/tdd" and remote.label == "gh:mattpocock/skills/tdd"
    for url in ("https://evil.example.com/AGENTS.md", "http://github.com/a/b/AGENTS.md", "file:///etc/passwd"):
        with pytest.raises(RemoteError):
            resolve(url, lambda u: pytest.fail("a refused host must not be fetched"))


def test_redirects_off_the_allowlist_are_refused():
    handler = _AllowlistRedirects()
    request = urllib.request.Request("https://github.com/a/b/raw/main/AGENTS.md")
    with pytest.raises(RemoteError):
        handler.redirect_request(request, None, 302, "Found", {}, "https://attacker.example/AGENTS.md")
    check_url("https://raw.githubusercontent.com/a/b/HEAD/AGENTS.md")  # allowed


def test_remote_targets_default_to_review_mode(tmp_path, monkeypatch, capsys):
    root = _project(tmp_path, {})
    monkeypatch.chdir(root)
    def fetcher(url):
        if not url.endswith("/HEAD/AGENTS.md"):
            raise RemoteError("HTTP 404")
        return b"Never run `terraform destroy`.\n"

    args = cli._parser().parse_args(["compile", "gh:acme/rules/AGENTS.md"])
    assert verbs._compile(args, fetcher=fetcher) == 0
    out = capsys.readouterr().out
    assert "fetched sha256:" in out and "Review-mode output" in out
    review = json.loads((root / ".interlinked" / "distilled-rules.review.json").read_text())
    assert review["rules"][0]["source"]["group_id"] == "gh:acme/rules/AGENTS.md"
    assert not (root / ".interlinked" / "distilled-rules.json").exists()


# --- discovery (§2) ---

def test_home_globals_rank_below_project_files(tmp_path, monkeypatch):
    root = _project(tmp_path, {"AGENTS.md": "Never run `alpha`.\n"})
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "AGENTS.md").write_text("Never run `bravo`.\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(root)
    assert cli.main(["compile"]) == 0
    ir = json.loads((root / ".interlinked" / "policy.ir.json").read_text())
    by_group = {s["group_id"]: s for s in ir["sources"]}
    assert by_group["home:.codex/AGENTS.md"]["file"] == "~/.codex/AGENTS.md"
    assert by_group["home:.codex/AGENTS.md"]["precedence"] > by_group["local:AGENTS.md"]["precedence"]


def test_skip_list_and_nested_agents(tmp_path):
    root = _project(tmp_path, {
        ".claude/skills/tdd/SKILL.md": "---\nname: tdd\n---\nNever write code first.\n",
        "skills/enforce/SKILL.md": "---\nname: enforce\n---\nNever distill hedges.\n",
        "services/api/AGENTS.md": "Never edit `migrations/` by hand. Never run `make reset`.\n",
    })
    ir = compile_paths(discover(root).paths, root)
    assert {d["file"] for d in ir.dropped} == {".claude/skills/tdd/SKILL.md", "skills/enforce/SKILL.md"}
    path_rule, shell_rule = ir.imperatives
    assert path_rule.scope == {"file_scope": "(?:^|/)services/api/"}
    assert shell_rule.scope == {}  # the harness cannot scope a shell command to a folder


def test_glob_scoped_shell_rules_go_to_pass2_with_their_cause(tmp_path):
    root = _project(tmp_path, {".cursor/rules/py.mdc": "---\nglobs: \"*.py\"\n---\nNever run `pip install` directly.\n"})
    ir = compile_paths(discover(root).paths, root)
    (rule,) = ir.imperatives
    assert rule.routes == ["pass2"]
    assert rule.pass2_cause == "its source is scoped to files, and a shell or tool call carries no file path"
    cli.main(["compile", "--root", str(root)])
    policy = (root / ".interlinked" / "policies" / "local-cursor-rules-py-mdc.policy.md").read_text()
    assert "- **rationale**: demoted from Pass 1 by the scope gate: its source is scoped to files" in policy


# --- incremental and subset runs (§3) ---

def test_unchanged_files_are_not_extracted_again(tmp_path, monkeypatch):
    root = _project(tmp_path, {"AGENTS.md": "Never run `alpha`.\n", "CLAUDE.md": "Never run `bravo`.\n"})
    monkeypatch.chdir(root)
    assert cli.main(["compile"]) == 0
    first = _rules(root)
    from policyc.compiler import extract

    runs = []
    original = extract.Extractor.run
    monkeypatch.setattr(extract.Extractor, "run", lambda self: (runs.append(self.source.file), original(self))[1])
    (root / "CLAUDE.md").write_text("Never run `charlie`.\n")
    assert cli.main(["compile"]) == 0
    assert runs == ["CLAUDE.md"]
    second = _rules(root)
    assert first["rules"][0] == second["rules"][0]  # AGENTS.md's rule, copied through
    assert second["removed"] == [{"id": "enforce-local-claude-md-no-bravo", "reason": second["removed"][0]["reason"]}]
    assert "no longer present in CLAUDE.md" in second["removed"][0]["reason"]


def test_an_older_ir_version_is_not_reused(tmp_path, monkeypatch):
    root = _project(tmp_path, {"AGENTS.md": "Never run `alpha`.\n"})
    monkeypatch.chdir(root)
    assert cli.main(["compile"]) == 0
    saved = root / ".interlinked" / "policy.ir.json"
    old = json.loads(saved.read_text())
    old["ir_version"] = "1.1"
    saved.write_text(json.dumps(old))
    from policyc.compiler import extract

    runs = []
    original = extract.Extractor.run
    monkeypatch.setattr(extract.Extractor, "run", lambda self: (runs.append(self.source.file), original(self))[1])
    assert cli.main(["compile"]) == 0
    assert runs == ["AGENTS.md"]  # neither "up to date" nor reused: its items may lack newer fields
    assert json.loads(saved.read_text())["ir_version"] != "1.1"


def test_subset_run_keeps_other_sources(tmp_path, monkeypatch):
    root = _project(tmp_path, {"AGENTS.md": "Never run `alpha`.\n", "CLAUDE.md": "Never run `bravo`.\n"})
    monkeypatch.chdir(root)
    assert cli.main(["compile"]) == 0
    (root / "AGENTS.md").write_text("Never run `zulu`.\n")
    assert cli.main(["compile", "AGENTS.md"]) == 0
    rules = {r["id"] for r in _rules(root)["rules"]}
    assert rules == {"enforce-local-agents-md-no-zulu", "enforce-local-claude-md-no-bravo"}


# --- pre-flight (§11) and review mode ---

def test_fallback_output_without_interlinked(tmp_path, monkeypatch, capsys):
    root = _project(tmp_path, {"AGENTS.md": "Never run `alpha`.\n"}, interlinked=False)
    monkeypatch.chdir(root)
    assert cli.main(["compile"]) == 0
    assert (root / "distilled-rules.json").is_file() and (root / "policies").is_dir()
    assert "No .interlinked/ directory found" in capsys.readouterr().err


def test_old_config_and_no_git_warn(tmp_path, monkeypatch, capsys):
    root = tmp_path / "plain"
    (root / ".interlinked").mkdir(parents=True)
    (root / ".interlinked" / "config.json").write_text('{"version": 1}')
    (root / "AGENTS.md").write_text("Never run `alpha`.\n")
    monkeypatch.chdir(root)
    assert cli.main(["compile"]) == 0
    err = capsys.readouterr().err
    assert "not a git repository" in err and "version < 2" in err


def test_review_then_accept_and_a_tampered_review_is_not_promoted(tmp_path, monkeypatch):
    root = _project(tmp_path, {"AGENTS.md": "Never run `alpha`.\n"})
    monkeypatch.chdir(root)
    assert cli.main(["compile"]) == 0
    live = root / ".interlinked" / "distilled-rules.json"
    before = hashlib.sha256(live.read_bytes()).hexdigest()
    (root / "AGENTS.md").write_text("Never run `bravo`.\n")
    assert cli.main(["compile", "--review"]) == 0
    assert hashlib.sha256(live.read_bytes()).hexdigest() == before
    review = root / ".interlinked" / "distilled-rules.review.json"
    tampered = json.loads(review.read_text())
    tampered["rules"][0]["source"]["quote"] = "Never run `anything`."
    review.write_text(json.dumps(tampered))
    assert cli.main(["accept"]) == 1
    assert hashlib.sha256(live.read_bytes()).hexdigest() == before
    assert cli.main(["compile", "--review"]) == 0
    assert cli.main(["accept"]) == 0
    assert _rules(root)["rules"][0]["id"] == "enforce-local-agents-md-no-bravo"
    assert not review.exists()


def test_sources_are_never_modified(tmp_path, monkeypatch):
    root = _project(tmp_path, {"AGENTS.md": "Never run `alpha`.\n", ".interlinked/guard-rules.local.json": "{}"})
    monkeypatch.chdir(root)
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    assert cli.main(["compile"]) == 0 and cli.main(["compile"]) == 0
    assert all(p.read_bytes() == data for p, data in before.items())
