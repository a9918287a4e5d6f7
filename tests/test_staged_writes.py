"""Staged writes (compiler/output.py): temporaries written in threads while the run still checks its
files, renamed in order only on commit; nothing a reader sees changes before that."""

from __future__ import annotations

import errno
import os
import stat

import pytest
from policyc.compiler import output


def _names(folder):
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


def test_commit_renames_in_order_and_leaves_no_temporary(tmp_path, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    files = [(out / "policies" / f"g{i}.policy.md", f"group {i}\n") for i in range(20)] + [(out / "distilled-rules.json", b"{}\n")]
    renamed = []
    real = os.replace
    monkeypatch.setattr(os, "replace", lambda src, dst: (renamed.append(dst), real(src, dst)))
    staged = output.Staged(files, out)
    staged.commit([path for path, _ in files])
    assert renamed == [path for path, _ in files]
    assert (out / "policies" / "g7.policy.md").read_text() == "group 7\n" and (out / "distilled-rules.json").read_bytes() == b"{}\n"
    assert stat.S_IMODE((out / "policies" / "g7.policy.md").stat().st_mode) == output._mode()
    assert not [n for n in _names(out) if n.endswith(".tmp")]


def test_commit_leaves_out_what_it_is_not_given(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    staged = output.Staged([(out / "a.cedar", "a\n"), (out / "b.cedar", "b\n")], out)
    staged.commit([out / "a.cedar"])  # b failed a check: its temporary goes
    assert _names(out) == ["a.cedar"]


def test_discard_changes_nothing_a_reader_sees(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "distilled-rules.json").write_text("old\n")
    staged = output.Staged([(out / "policies" / "deep" / "g.policy.md", "new\n"), (out / "distilled-rules.json", "new\n")], out)
    staged.discard()
    assert _names(out) == ["distilled-rules.json"]  # no temporary, and the folders staging made are gone
    assert (out / "distilled-rules.json").read_text() == "old\n"


def test_an_unchanged_file_is_not_rewritten(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    output.write_atomic(out / "a.json", "{}\n")
    os.utime(out / "a.json", (1, 1))
    output.Staged([(out / "a.json", "{}\n"), (out / "b.json", "[]\n")], out).commit([out / "a.json", out / "b.json"])
    assert (out / "a.json").stat().st_mtime == 1 and (out / "b.json").read_text() == "[]\n"


def test_a_failed_write_is_raised_at_commit_and_leaves_nothing_half_done(tmp_path, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    real = os.fsync

    def full_disk(fd):
        if os.readlink(f"/proc/self/fd/{fd}").split("/")[-1].startswith(f"{output.TMP_PREFIX}c.json"):
            raise OSError(errno.ENOSPC, "No space left on device")
        real(fd)

    monkeypatch.setattr(os, "fsync", full_disk)
    staged = output.Staged([(out / f"{name}.json", "{}\n") for name in "abcde"], out)
    with pytest.raises(OSError, match="No space"):
        staged.commit([out / f"{name}.json" for name in "abcde"])
    assert _names(out) == []  # no file renamed, no temporary left


def test_a_refused_target_raises_before_anything_is_written(tmp_path):
    out = tmp_path / "out"
    (out / "policies").mkdir(parents=True)
    os.symlink(tmp_path, out / "policies" / "b.cedar")
    with pytest.raises(output.OutputError, match="symbolic link"):
        output.Staged([(out / "new" / "a.cedar", "a\n"), (out / "policies" / "b.cedar", "b\n")], out)
    assert _names(out) == ["policies", "policies/b.cedar"]  # not even the folder the first file needed
