"""Evidence: citations found in a memory, fingerprinted at write time, checked after real commits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory.citations import Citation, find
from memory.evidence import (
    CHANGED,
    GONE,
    INTACT,
    MOVED,
    UNRECORDED,
    check_text,
    head_commit,
    summary,
)
from memory.evidence_file import EVIDENCE_NAME, EvidenceFile
from tests.repos import git

ORCHESTRATOR = "src/Core/Review/ReviewOrchestrator.cs"


def _source(call: str = "file.Patch") -> str:
    lines = [f"// line {i}" for i in range(1, 111)]
    lines[109] = "    var diff = " + call + ";"  # line 110
    lines.append("        return Summarize(" + call + ", options);")  # line 111
    lines += ["    }", "}"]
    return "\n".join(lines) + "\n"


@pytest.fixture
def repo(make_repo) -> Path:
    return make_repo("repo", {
        ORCHESTRATOR: _source(),
        "src/Core/ChangedFile.cs": "class ChangedFile {\n  public string Patch;\n}\n",
        "tools/settings.py": "".join(f"OPTION_{i} = {i}\n" for i in range(10)),
        "README.md": "# readme\n",
    }, commit=True, under="")


def commit(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


NOTE = f"""---
name: rename plan
type: project
description: the Patch to Diff rename
cites:
  - src/Core/ChangedFile.cs:2
---
The call site {ORCHESTRATOR}:111 still uses file.Patch; the user finishes it on 2026-11-09.
"""


def record(folder: Path, repo: Path, text: str, old: str | None = None, name: str = "rename.md") -> EvidenceFile:
    evidence = EvidenceFile.load(folder)
    evidence.record(name, old, text, repo)
    evidence.save()
    return EvidenceFile.load(folder)


def states(repo: Path, folder: Path, text: str, name: str = "rename.md") -> dict[str, tuple[str, str | None]]:
    checks = check_text(text, repo, EvidenceFile.load(folder).get(name))
    return {c.cite: (c.state, c.where) for c in checks}


# --- finding citations ---------------------------------------------------------------------


def test_every_citation_form_is_found(repo):
    text = (
        "---\nname: forms\ncites: [tools/settings.py:3-5]\n---\n"
        f"- {ORCHESTRATOR}:111 and {ORCHESTRATOR}:110-111 and `README.md`\n"
        "- MSBuild said ReviewOrchestrator.cs(111,5): error CS1061\n"
        "- src/Core/ChangedFile.cs line 2 still has Patch; src/Core/ChangedFile.cs lines 1-3 is the class\n"
        "- see tools/settings.py:4:12 (line and column)\n"
    )
    assert find(text, repo) == [
        Citation("tools/settings.py", 3, 5),
        Citation(ORCHESTRATOR, 111),
        Citation(ORCHESTRATOR, 110, 111),
        Citation("README.md"),
        Citation("ReviewOrchestrator.cs", 111),
        Citation("src/Core/ChangedFile.cs", 2),
        Citation("src/Core/ChangedFile.cs", 1, 3),
        Citation("tools/settings.py", 4),
    ]


def test_prose_is_not_a_citation(repo):
    text = "and/or 3/4 on 2026/11/06, e.g. this, version 1.2.3, CS1591, https://example.com/a/b.md, ~/notes/x.md, /etc/hosts"
    assert find(text, repo) == []


def test_a_bare_path_beside_its_lines_is_one_citation(repo):
    assert find(f"{ORCHESTRATOR} is long; see {ORCHESTRATOR}:111", repo) == [Citation(ORCHESTRATOR, 111)]


# --- fingerprints and the four states after real commits -------------------------------------


def test_fingerprints_record_the_commit_and_stay_hidden(repo, tmp_path):
    folder = tmp_path / "memories"
    folder.mkdir()
    head = head_commit(repo)
    evidence = record(folder, repo, NOTE)
    fps = {fp.cite: fp for fp in evidence.get("rename.md")}
    assert set(fps) == {"src/Core/ChangedFile.cs:2", f"{ORCHESTRATOR}:111"}
    assert all(fp.commit == head and len(head) == 40 for fp in fps.values())
    assert fps[f"{ORCHESTRATOR}:111"].anchor == 111 and fps[f"{ORCHESTRATOR}:111"].count == 1
    raw = json.loads((folder / EVIDENCE_NAME).read_text())
    assert raw["version"] == 1 and "rename.md" in raw["memories"]


def test_intact_until_the_call_site_is_fixed_and_committed(repo, tmp_path):
    folder = tmp_path / "memories"
    folder.mkdir()
    record(folder, repo, NOTE)
    assert states(repo, folder, NOTE)[f"{ORCHESTRATOR}:111"] == (INTACT, None)

    (repo / ORCHESTRATOR).write_text(_source("file.Diff"))
    fixed = commit(repo, "Finish the rename")
    checks = check_text(NOTE, repo, EvidenceFile.load(folder).get("rename.md"))
    assert checks[0].state == CHANGED and checks[0].cite == f"{ORCHESTRATOR}:111"
    assert fixed != checks[0].commit
    assert summary(checks) == f"{ORCHESTRATOR}:111 changed since {checks[0].commit[:7]}; 1 intact"


def test_whitespace_only_edits_do_not_count(repo, tmp_path):
    folder = tmp_path / "memories"
    folder.mkdir()
    record(folder, repo, NOTE)
    reformatted = _source().replace("        return Summarize(file.Patch, options);", "\treturn   Summarize(file.Patch,  options);   ")
    (repo / ORCHESTRATOR).write_text(reformatted)
    commit(repo, "Reformat")
    assert states(repo, folder, NOTE)[f"{ORCHESTRATOR}:111"] == (INTACT, None)


def test_moved_says_where_the_text_is_now(repo, tmp_path):
    folder = tmp_path / "memories"
    folder.mkdir()
    record(folder, repo, NOTE)
    (repo / ORCHESTRATOR).write_text("using System;\nusing System.Linq;\n\n" + _source())
    commit(repo, "Add usings")
    assert states(repo, folder, NOTE)[f"{ORCHESTRATOR}:111"] == (MOVED, f"{ORCHESTRATOR}:114")


def test_a_range_moves_as_a_whole(repo, tmp_path):
    folder = tmp_path / "memories"
    folder.mkdir()
    text = f"the two uses: {ORCHESTRATOR}:110-111\n"
    record(folder, repo, text, name="two.md")
    (repo / ORCHESTRATOR).write_text("// header\n" + _source())
    commit(repo, "Header")
    assert states(repo, folder, text, "two.md") == {f"{ORCHESTRATOR}:110-111": (MOVED, f"{ORCHESTRATOR}:111-112")}


def test_gone_when_the_file_is_deleted(repo, tmp_path):
    folder = tmp_path / "memories"
    folder.mkdir()
    record(folder, repo, NOTE)
    git(repo, "rm", "-q", "src/Core/ChangedFile.cs")
    commit(repo, "Drop ChangedFile")
    assert states(repo, folder, NOTE)["src/Core/ChangedFile.cs:2"] == (GONE, None)


def test_a_file_git_renamed_is_moved_not_gone(repo, tmp_path):
    folder = tmp_path / "memories"
    folder.mkdir()
    record(folder, repo, NOTE)
    git(repo, "mv", "src/Core/ChangedFile.cs", "src/Core/FileChange.cs")
    commit(repo, "Rename the class file")
    assert states(repo, folder, NOTE)["src/Core/ChangedFile.cs:2"] == (MOVED, "src/Core/FileChange.cs:2")


def test_a_bare_file_name_is_found_in_the_tree(repo, tmp_path):
    folder = tmp_path / "memories"
    folder.mkdir()
    text = "settings.py:3 holds OPTION_2\n"
    evidence = record(folder, repo, text, name="s.md")
    assert evidence.get("s.md")[0].path == "tools/settings.py"
    assert states(repo, folder, text, "s.md") == {"settings.py:3": (INTACT, None)}
    (repo / "tools/settings.py").write_text("# options\n" + (repo / "tools/settings.py").read_text())
    commit(repo, "Comment")
    assert states(repo, folder, text, "s.md") == {"settings.py:3": (MOVED, "tools/settings.py:4")}


def test_a_folder_citation_is_intact_or_gone(repo, tmp_path):
    folder = tmp_path / "memories"
    folder.mkdir()
    text = "build with dotnet build src/Core (not the CLI)\n"
    record(folder, repo, text, name="b.md")
    assert states(repo, folder, text, "b.md") == {"src/Core": (INTACT, None)}
    git(repo, "mv", "src/Core", "src/Kernel")
    commit(repo, "Rename the project folder")
    assert states(repo, folder, text, "b.md") == {"src/Core": (GONE, None)}


def test_unrecorded_citations_are_still_checked_for_existence(repo, tmp_path):
    folder = tmp_path / "memories"
    folder.mkdir()
    text = "see README.md:1, tools/settings.py:40 and src/Old/Gone.cs\n"
    assert states(repo, folder, text, "x.md") == {
        "src/Old/Gone.cs": (GONE, None),
        "tools/settings.py:40": (CHANGED, None),
        "README.md:1": (UNRECORDED, None),
    }


def test_editing_the_wording_keeps_the_first_fingerprint(repo, tmp_path):
    """Otherwise any write would launder a citation that went out of date."""
    folder = tmp_path / "memories"
    folder.mkdir()
    record(folder, repo, NOTE)
    (repo / ORCHESTRATOR).write_text(_source("file.Diff"))
    commit(repo, "Finish the rename")
    reworded = NOTE.replace("the user finishes it", "the user said they finish it")
    record(folder, repo, reworded, old=NOTE)
    assert states(repo, folder, reworded)[f"{ORCHESTRATOR}:111"][0] == CHANGED


def test_moving_verified_forward_fingerprints_again(repo, tmp_path):
    folder = tmp_path / "memories"
    folder.mkdir()
    record(folder, repo, NOTE)
    (repo / ORCHESTRATOR).write_text(_source("file.Diff"))
    commit(repo, "Finish the rename")
    verified = NOTE.replace("type: project\n", "type: project\nverified: 2026-11-09\n")
    record(folder, repo, verified, old=NOTE)
    assert states(repo, folder, verified)[f"{ORCHESTRATOR}:111"] == (INTACT, None)


def test_rename_and_delete_follow_the_memory(repo, tmp_path):
    folder = tmp_path / "memories"
    folder.mkdir()
    evidence = record(folder, repo, NOTE, name="sub/rename.md")
    assert evidence.move("sub", "other")
    assert list(evidence.memories) == ["other/rename.md"]
    assert evidence.forget("other/rename.md") and evidence.memories == {}


def test_a_broken_evidence_file_reads_as_unrecorded(repo, tmp_path):
    folder = tmp_path / "memories"
    folder.mkdir()
    (folder / EVIDENCE_NAME).write_text("{not json")
    assert EvidenceFile.load(folder).memories == {}
    assert states(repo, folder, NOTE)[f"{ORCHESTRATOR}:111"] == (UNRECORDED, None)


def test_outside_git_the_commit_is_none(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.py").write_text("x = 1\n")
    folder = tmp_path / "memories"
    folder.mkdir()
    evidence = record(folder, plain, "a.py:1 sets x\n", name="a.md")
    assert evidence.get("a.md")[0].commit is None
    (plain / "a.py").write_text("x = 2\n")
    checks = check_text("a.py:1 sets x\n", plain, evidence.get("a.md"))
    assert checks[0].sentence() == "a.py:1 changed"


# --- through the store ----------------------------------------------------------------------


def test_the_store_fingerprints_every_write_and_view_never_lists_it(repo):
    from memory.store import MemoryStore

    store = MemoryStore.for_repository(repo)
    assert store.run({"command": "create", "path": "/memories/rename.md", "file_text": NOTE})[1] is False
    assert (store.directory / EVIDENCE_NAME).is_file()
    listing, _ = store.run({"command": "view", "path": "/memories"})
    assert EVIDENCE_NAME not in listing and "rename.md" in listing
    assert EVIDENCE_NAME in store.run({"command": "view", "path": f"/memories/{EVIDENCE_NAME}"})[0]  # refused: hidden
    assert store.run({"command": "view", "path": f"/memories/{EVIDENCE_NAME}"})[1] is True
    assert {c.cite: c.state for c in store.evidence()["/memories/rename.md"]} == {
        f"{ORCHESTRATOR}:111": INTACT, "src/Core/ChangedFile.cs:2": INTACT,
    }
    store.run({"command": "rename", "old_path": "/memories/rename.md", "new_path": "/memories/plans/rename.md"})
    assert list(EvidenceFile.load(store.directory).memories) == ["plans/rename.md"]
    # The pane's editor saves through the store too.
    text = store.read("/memories/plans/rename.md").replace("type: project\n", "type: project\nverified: 2026-11-09\n")
    (repo / ORCHESTRATOR).write_text(_source("file.Diff"))
    assert store.save("/memories/plans/rename.md", text) == ("Saved /memories/plans/rename.md", False)
    assert store.evidence()["/memories/plans/rename.md"][0].state == INTACT  # verified: fingerprinted again
    store.run({"command": "delete", "path": "/memories/plans"})
    assert EvidenceFile.load(store.directory).memories == {}


def test_a_store_without_a_repository_records_nothing(tmp_path):
    from memory.store import MemoryStore

    store = MemoryStore(tmp_path / "m")
    store.run({"command": "create", "path": "/memories/a.md", "file_text": "see src/a.py:1\n"})
    assert not (store.directory / EVIDENCE_NAME).exists() and store.evidence() == {}


def test_a_hand_made_evidence_file_reaches_nothing_outside(repo, tmp_path):
    """Records are data from disk: a path out of the tree or a commit shaped like an option
    is dropped, so the citation reads as unrecorded and git never sees it."""
    sandbox = tmp_path / "sandbox"
    folder = sandbox / "a" / "b" / "c" / "memories"
    folder.mkdir(parents=True)
    (sandbox / "outside.txt").write_text("secret-ish\n")
    stray = sandbox / "stray"
    text = "see src/Core/ChangedFile.cs:2 and src/Old.cs:1\n"
    records = {"version": 1, "memories": {"m.md": [
        {"cite": "src/Core/ChangedFile.cs:2", "path": "../../../../../sandbox/outside.txt", "kind": "lines", "start": 1, "end": 1,
         "anchor": 1, "count": 1, "hash": "x", "first": "y", "commit": None, "recorded": ""},
        {"cite": "src/Old.cs:1", "path": "src/Old.cs", "kind": "lines", "start": 1, "end": 1, "anchor": 1, "count": 1,
         "hash": "x", "first": "y", "commit": f"--output={stray}", "recorded": ""},
        {"cite": 5, "path": "README.md", "kind": "file"},
    ]}}
    (folder / EVIDENCE_NAME).write_text(json.dumps(records))
    assert EvidenceFile.load(folder).get("m.md") == []
    checks = {c.cite: c.state for c in check_text(text, repo, EvidenceFile.load(folder).get("m.md"))}
    assert checks == {"src/Core/ChangedFile.cs:2": UNRECORDED, "src/Old.cs:1": GONE}
    assert sorted(p.name for p in sandbox.rglob("*")) == sorted(["a", "b", "c", "memories", EVIDENCE_NAME, "outside.txt"])


def test_git_config_in_the_repository_runs_nothing(repo, tmp_path):
    marker = tmp_path / "ran"
    hook = tmp_path / "monitor.sh"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    git(repo, "config", "core.fsmonitor", str(hook))
    folder = tmp_path / "memories"
    folder.mkdir()
    record(folder, repo, NOTE)
    git(repo, "mv", "src/Core/ChangedFile.cs", "src/Core/FileChange.cs")
    git(repo, "-c", "core.fsmonitor=false", "commit", "-q", "-m", "rename")
    marker.unlink(missing_ok=True)
    assert states(repo, folder, NOTE)["src/Core/ChangedFile.cs:2"] == (MOVED, "src/Core/FileChange.cs:2")
    assert not marker.exists()


def test_of_the_frontmatter_only_the_description_and_cites_are_read(repo):
    text = "---\nname: Makefile\ndescription: about src/Old/Gone.cs\ntype: project\n---\nbody\n"
    assert find(text, repo) == [Citation("src/Old/Gone.cs")]


def test_a_range_past_the_end_of_its_file_is_changed(repo, tmp_path):
    folder = tmp_path / "memories"
    folder.mkdir()
    # tools/settings.py has 10 lines.
    assert states(repo, folder, "see tools/settings.py:3-10", "r.md") == {"tools/settings.py:3-10": (UNRECORDED, None)}
    assert states(repo, folder, "see tools/settings.py:3-11", "r.md") == {"tools/settings.py:3-11": (CHANGED, None)}
    record(folder, repo, "see tools/settings.py:12-14", name="r.md")
    checks = check_text("see tools/settings.py:12-14", repo, EvidenceFile.load(folder).get("r.md"))
    assert checks[0].sentence() == "tools/settings.py:12-14 changed since " + checks[0].commit[:7] + " (line 12 was past the end of the file when written)"


def test_a_bare_readme_where_readme_md_is_is_prose_not_a_file_gone(tmp_path):
    (tmp_path / "README.md").write_text("# x\n")
    (tmp_path / "LICENSE").write_text("MIT\n")
    found = {c.path for c in find("Step 2: document it in the README. See LICENSE and the CHANGELOG.", tmp_path)}
    # README is what people call README.md; LICENSE is there as named; no CHANGELOG of any kind: a claim
    assert found == {"LICENSE", "CHANGELOG"}
