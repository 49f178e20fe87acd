"""Repository vocabulary from real files and a real memory store."""

from pathlib import Path

import pytest

from agent.voice.vocabulary import memory_terms, repository_vocabulary


@pytest.fixture
def repo(make_repo) -> Path:
    return make_repo("Contoso.Reviews", under="work", files={
        "Contoso.Reviews.sln": "Microsoft Visual Studio Solution File\n",
        "src/Contoso.Reviews.Core/Contoso.Reviews.Core.csproj": "<Project/>",
        "tests/Contoso.Reviews.Tests/Contoso.Reviews.Tests.csproj": "<Project/>",
        "src/Contoso.Reviews.Core/Review.cs":
        "namespace Contoso.Reviews;\n"
        "public sealed class ReviewOrchestrator { }\n"
        "internal record DiffHunk(int Start);\n"
        "public interface IPromptBuilder { }\n"
        "public enum Severity { Low }\n",
        "tools.py": "class ScoreCard:\n    pass\n",
        "pyproject.toml": '[project]\nname = "review-tools"\n',
        # Build output and dependencies are not the project's own words.
        "src/Contoso.Reviews.Core/obj/Gen.cs": "class GeneratedNoise {}",
        "node_modules/lib/x.ts": "export class VendoredThing {}",
    })


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
