"""Repository vocabulary from real files and a real memory store."""

from pathlib import Path

import pytest

from agent.voice.vocabulary import memory_terms, repository_vocabulary


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "work" / "Contoso.Reviews"
    (root / "src" / "Contoso.Reviews.Core").mkdir(parents=True)
    (root / "tests" / "Contoso.Reviews.Tests").mkdir(parents=True)
    (root / "Contoso.Reviews.sln").write_text("Microsoft Visual Studio Solution File\n")
    (root / "src" / "Contoso.Reviews.Core" / "Contoso.Reviews.Core.csproj").write_text("<Project/>")
    (root / "tests" / "Contoso.Reviews.Tests" / "Contoso.Reviews.Tests.csproj").write_text("<Project/>")
    (root / "src" / "Contoso.Reviews.Core" / "Review.cs").write_text(
        "namespace Contoso.Reviews;\n"
        "public sealed class ReviewOrchestrator { }\n"
        "internal record DiffHunk(int Start);\n"
        "public interface IPromptBuilder { }\n"
        "public enum Severity { Low }\n")
    (root / "tools.py").write_text("class ScoreCard:\n    pass\n")
    (root / "pyproject.toml").write_text('[project]\nname = "review-tools"\n')
    # Build output and dependencies are not the project's own words.
    (root / "src" / "Contoso.Reviews.Core" / "obj").mkdir()
    (root / "src" / "Contoso.Reviews.Core" / "obj" / "Gen.cs").write_text("class GeneratedNoise {}")
    (root / "node_modules" / "lib").mkdir(parents=True)
    (root / "node_modules" / "lib" / "x.ts").write_text("export class VendoredThing {}")
    return root


def test_project_and_class_names(repo):
    words = repository_vocabulary(repo, None)
    for expected in ("Contoso.Reviews", "Contoso.Reviews.Core", "Contoso.Reviews.Tests",
                     "review-tools", "Core", "ReviewOrchestrator", "DiffHunk", "IPromptBuilder",
                     "ScoreCard", "Severity"):
        assert expected in words
    assert "GeneratedNoise" not in words and "VendoredThing" not in words
    # Compound names, the ones the recognizer mangles, come before plain ones.
    assert words.index("ReviewOrchestrator") < words.index("Severity")


def test_memory_terms_come_first(repo, tmp_path, monkeypatch):
    from memory.store import MemoryStore

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    store = MemoryStore(tmp_path / "data" / "memories" / "reviews")
    text = ("---\nname: warnings\ntype: feedback\ndescription: which warnings matter\n---\n"
            "The user wants CS1591 and IDE0005 fixed in the PaymentGateway project first.\n")
    message, is_error = store.run({"command": "create", "path": "/memories/warnings.md",
                             "file_text": text})
    assert not is_error, message
    words = repository_vocabulary(repo, store)
    assert words[:3] == ["CS1591", "IDE0005", "PaymentGateway"]
    assert "ReviewOrchestrator" in words


def test_the_list_is_capped(tmp_path):
    root = tmp_path / "big"
    root.mkdir()
    for n in range(120):
        (root / f"F{n}.cs").write_text(f"class Generated{n}Widget {{ }}\n")
    assert len(repository_vocabulary(root, None)) == 40
    assert len(repository_vocabulary(root, None, limit=5)) == 5


def test_terms_in_prose():
    assert memory_terms("Fix CS1591 in ReviewOrchestrator (Contoso.Billing); TS2322 too. "
                        "Normal Words stay out.") == [
        "CS1591", "TS2322", "Contoso.Billing", "ReviewOrchestrator"]


def test_a_missing_repository_gives_an_empty_list(tmp_path):
    assert repository_vocabulary(tmp_path / "gone", None) == []
