"""memory check: a folder with each kind of finding, and a clean one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memory.check import KINDS, by_memory, check_store, format_problem, state_lines
from memory.evidence_file import EvidenceFile
from memory.store import MemoryStore
from tests.repos import git

DAY = 86400.0
NOW = 1_800_000_000.0
GHP = "ghp_" + "a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTuVwXyZ"


def note(name: str, body: str, kind: str = "project", description: str | None = None) -> str:
    return f"---\nname: {name}\ntype: {kind}\ndescription: {description or 'about ' + name}\n---\n{body}\n"


@pytest.fixture
def repo(make_repo) -> Path:
    files = {"src/Orchestrator.cs": "class A {\n  void Run() { Use(file.Patch); }\n}\n", "src/Gone.cs": "class Gone {}\n"}
    return make_repo("repo", files, commit=True, under="")


def write(store: MemoryStore, relative: str, text: str, age_days: float = 1) -> Path:
    """Straight to disk, as an editor would: the store itself refuses some of these."""
    path = Path(store.directory) / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    stamp = NOW - age_days * DAY
    os.utime(path, (stamp, stamp))
    return path


def index(store: MemoryStore, *names: str) -> None:
    write(store, "MEMORY.md", "".join(f"- [{n}]({n}) — about {n}\n" for n in names))


def clean_folder(store: MemoryStore) -> None:
    write(store, "core.md", note("core", "The Core project is the one the user cares about; the CLI is a wrapper."))
    write(store, "warnings.md", note("warnings", "CS1591 is noise. Nullable warnings are real.", "feedback"))
    index(store, "core.md", "warnings.md")


def test_a_clean_folder_has_no_findings(tmp_path, repo):
    store = MemoryStore(tmp_path / "m")
    clean_folder(store)
    assert check_store(store, repo, now=NOW) == []


def test_every_kind_is_found(tmp_path, repo):
    store = MemoryStore(tmp_path / "m", max_file_chars=600, max_total_chars=4000)
    clean_folder(store)
    write(store, "friday.md", note("friday", "Open build error: the build is red.\n3 uncommitted files on the branch."))
    write(store, "core-again.md", note("core again", "The Core project is the one the user cares about; the CLI is a wrapper."), age_days=0.5)
    call_site = note("call site", "src/Orchestrator.cs:2 still uses file.Patch; see also src/Gone.cs:1")
    write(store, "call-site.md", call_site)
    evidence = EvidenceFile.load(Path(store.directory))
    evidence.record("call-site.md", None, call_site, repo)
    evidence.save()
    write(store, "old.md", note("old", "The user reviews on Tuesdays."), age_days=45)
    write(store, "big.md", note("big", "x" * 560))
    write(store, "leak.md", note("leak", f"token {GHP}"))
    write(store, "bare.md", "no frontmatter at all\n")
    index(store, "core.md", "warnings.md", "friday.md", "core-again.md", "call-site.md", "old.md", "big.md", "leak.md", "bare.md", "missing.md")

    (repo / "src/Orchestrator.cs").write_text("class A {\n  void Run() { Use(file.Diff); }\n}\n")
    git(repo, "rm", "-q", "src/Gone.cs")
    git(repo, "commit", "-qam", "Finish the rename")

    findings = check_store(store, repo, now=NOW)
    kinds = {(f.path, f.kind) for f in findings}
    assert kinds == {
        ("/memories/friday.md", "state"),
        ("/memories/core-again.md", "duplicate"),
        ("/memories/call-site.md", "changed"),
        ("/memories/call-site.md", "gone"),
        ("/memories/old.md", "aging"),
        ("/memories/MEMORY.md", "index"),
        ("/memories/big.md", "cap"),
        ("/memories/leak.md", "secret"),
        ("/memories/bare.md", "format"),
    }
    assert {f.kind for f in findings} == set(KINDS)
    grouped = by_memory(findings)
    assert len([f for f in grouped["/memories/friday.md"] if f.kind == "state"]) == 2
    assert "src/Orchestrator.cs:2 changed since" in next(f.detail for f in findings if f.kind == "changed")
    assert "45 days" in next(f.detail for f in findings if f.kind == "aging")
    assert "missing.md" in next(f.detail for f in findings if f.kind == "index")
    assert GHP not in " ".join(f.detail for f in findings)


def test_a_memory_without_an_index_line_and_the_total_cap(tmp_path, repo):
    store = MemoryStore(tmp_path / "m", max_file_chars=4000, max_total_chars=300)
    clean_folder(store)
    write(store, "extra.md", note("extra", "Reviews happen on Tuesdays." * 3))
    findings = check_store(store, repo, now=NOW)
    assert ("/memories/extra.md", "index") in {(f.path, f.kind) for f in findings}
    assert ("/memories", "cap") in {(f.path, f.kind) for f in findings}


def test_state_lines_spare_conventions_and_plans():
    text = note("x", "\n".join([
        "CS1591 is noise; nullable warnings are real.",
        "The user finishes the ReviewOrchestrator call site on 2026-11-09.",
        "Build with `dotnet build src/Core`, not the solution.",
        "Error handling lives in src/Errors.cs.",
        "Last Core build showed 0 warnings.",
        "Tests pass on the branch.",
        "error CS1061 at line 111",
    ]))
    assert state_lines(text) == [
        "Last Core build showed 0 warnings.",
        "Tests pass on the branch.",
        "error CS1061 at line 111",
    ]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("body only\n", "no frontmatter"),
        ("---\n[unclosed\n---\nbody\n", "broken frontmatter"),
        ("---\nname: a\n---\nbody\n", "frontmatter lacks type, description"),
        ("---\nname: a\ntype: diary\ndescription: d\n---\n", "type 'diary' is not one of"),
    ],
)
def test_format_problems(text, problem):
    assert problem in (format_problem(text) or "")


def test_a_colon_in_the_description_is_read_as_the_store_reads_it():
    # not YAML (a plain value cannot hold ": "), but every listing takes the line as written
    text = "---\nname: CS1591\ntype: feedback\ndescription: Missing XML doc warnings: never report them\n---\nbody\n"
    assert format_problem(text) is None


def test_metadata_type_counts():
    assert format_problem("---\nname: a\ndescription: d\nmetadata:\n  type: feedback\n---\nbody\n") is None


def test_an_index_a_model_wrote_in_its_own_words_is_no_finding(tmp_path, repo):
    store = MemoryStore(tmp_path / "m")
    write(store, "core.md", note("core", "The Core project is the one the user cares about."))
    write(store, "plans/rename.md", note("rename", "The user finishes the rename on 2026-11-09."))
    write(store, "MEMORY.md", "- core.md: which project matters\n- `plans/rename.md` — the rename\n")
    assert check_store(store, repo, now=NOW) == []
    write(store, "MEMORY.md", "- core.md: which project matters\n- old.md: a plan since deleted\n")
    assert {(f.path, f.detail) for f in check_store(store, repo, now=NOW)} == {
        ("/memories/plans/rename.md", "no line in /memories/MEMORY.md, so a session reading the index will not find it"),
        ("/memories/MEMORY.md", "line 2 links to old.md, which is not a memory file"),
    }


@pytest.mark.parametrize(
    "line,detail",
    [
        ("Planned for Monday 2026-11-30.", "a day name beside a date (Monday 2026-11-30): keep the date alone"),
        ("Due Fri, 2026-11-06 at noon.", "a day name beside a date (Fri, 2026-11-06): keep the date alone"),
        ("Finish it on 2026-11-09 (Monday).", "a day name beside a date (2026-11-09 (Monday): keep the date alone"),
        ("Planned for Tuesday 2026-11-30.",
         "a day name beside a date (Tuesday 2026-11-30): keep the date alone; 2026-11-30 is a Monday"),
    ],
)
def test_a_day_name_beside_a_date_is_a_finding(tmp_path, repo, line, detail):
    store = MemoryStore(tmp_path / "m")
    clean_folder(store)
    write(store, "core.md", note("core", f"The Core project matters. {line}"))
    assert [(f.kind, f.detail) for f in check_store(store, repo, now=NOW)] == [("format", detail)]


def test_a_date_alone_and_a_weekly_habit_are_no_finding(tmp_path, repo):
    store = MemoryStore(tmp_path / "m")
    clean_folder(store)
    write(store, "core.md", note("core", "Deploys go out on Fridays; the rename is finished on 2026-11-30. Monday: standup."))
    assert check_store(store, repo, now=NOW) == []
