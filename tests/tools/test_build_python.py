"""build and test on Python projects, with the real interpreter and real pytest."""

from __future__ import annotations

import sys

import pytest

from agent.tools.build import BuildTool, RunTestsTool
from tests.tools.repos import ctx_for, install_executable, python_repo, tree


@pytest.mark.slow
def test_pytest_failures_and_counts(tmp_path):
    repo = python_repo(tmp_path / "calc")
    result = RunTestsTool().run({}, ctx_for(repo))
    assert not result.is_error
    assert result.text.startswith("Tests failed (Python (.venv): pytest; exit code 1,")
    assert "): 1 failed, 1 passed." in result.text
    assert "Failed tests:\n  tests/test_calc.py::test_sub: assert 8 == 2" in result.text
    assert result.summary == "1 failed, 1 passed · .venv"
    assert "def test_sub" in result.log  # the traceback stays in the log


@pytest.mark.slow
def test_pytest_filter_and_project(tmp_path):
    repo = python_repo(tmp_path / "calc")
    result = RunTestsTool().run({"filter": "add", "project": "tests"}, ctx_for(repo))
    assert result.text.startswith("Tests passed (Python (.venv): pytest tests;")
    assert "0 failed, 1 passed" in result.text


@pytest.mark.slow
def test_fixed_code_passes(tmp_path):
    repo = python_repo(tmp_path / "calc")
    init = repo / "calc" / "__init__.py"
    init.write_text(init.read_text().replace("def sub(a, b):\n    return a + b", "def sub(a, b):\n    return a - b"))
    result = RunTestsTool().run({}, ctx_for(repo))
    assert result.text.startswith("Tests passed")
    assert result.summary == "0 failed, 2 passed · .venv"


@pytest.mark.slow
def test_collection_error_is_reported(tmp_path):
    repo = python_repo(tmp_path / "calc")
    (repo / "tests" / "test_broken.py").write_text("import not_a_module_anywhere\n")
    result = RunTestsTool().run({}, ctx_for(repo))
    assert "1 error" in result.text
    # the cause reaches the model, not only the log
    assert "tests/test_broken.py: ModuleNotFoundError: No module named 'not_a_module_anywhere'" in result.text


@pytest.mark.slow
def test_tests_leave_no_cache_in_the_repository(tmp_path):
    repo = python_repo(tmp_path / "calc")
    RunTestsTool().run({}, ctx_for(repo))
    assert ".pytest_cache" not in tree(repo)


def test_build_reports_syntax_errors_without_writing_bytecode(tmp_path):
    repo = python_repo(tmp_path / "calc")
    (repo / "calc" / "broken.py").write_text("def f(:\n    pass\n")
    (repo / ".venv-like").mkdir()
    (repo / "node_modules").mkdir()
    (repo / "node_modules" / "ignored.py").write_text("this is not python\n")
    before = tree(repo)
    result = BuildTool().run({}, ctx_for(repo))
    assert result.text.startswith("Build failed (Python (.venv): compile .; exit code 1,")
    assert "Errors:\n  calc/broken.py:1:7: SyntaxError: invalid syntax" in result.text
    assert "ignored.py" not in result.text
    assert tree(repo) == before


def test_build_succeeds_on_valid_code(tmp_path):
    repo = python_repo(tmp_path / "calc")
    result = BuildTool().run({}, ctx_for(repo))
    assert result.text.startswith("Build succeeded (Python (.venv): compile .;")
    assert "compiled 2 Python files, 0 with errors" in result.log


def test_configured_mypy_runs_when_installed(tmp_path, monkeypatch):
    repo = python_repo(tmp_path / "calc")
    (repo / "pyproject.toml").write_text((repo / "pyproject.toml").read_text() + "\n[tool.mypy]\nstrict = true\n")
    # A project virtual environment whose python has a `mypy` module printing real mypy lines.
    venv_bin = repo / ".venv" / "bin"
    site = repo / ".venv" / "site"
    (site / "mypy").mkdir(parents=True)
    (site / "mypy" / "__main__.py").write_text(
        "import sys\n"
        "print('calc/__init__.py:1:1: error: Function is missing a type annotation  [no-untyped-def]')\n"
        "print('calc/__init__.py:5:1: error: Function is missing a type annotation  [no-untyped-def]')\n"
        "print('calc/__init__.py:5:1: note: Use \"-> None\" if function does not return a value')\n"
        "sys.exit(1)\n"
    )
    (site / "mypy" / "__init__.py").write_text("")
    wrapper = tmp_path / "venv-python.py"
    wrapper.write_text(
        "import os, sys\n"
        f"os.environ['PYTHONPATH'] = {str(site)!r}\n"
        f"os.execv({sys.executable!r}, [{sys.executable!r}] + sys.argv[1:])\n"
    )
    install_executable(venv_bin, "python", wrapper)
    result = BuildTool().run({}, ctx_for(repo))
    assert "mypy ." in result.text
    assert "2 errors, 0 warnings" in result.text
    assert "calc/__init__.py:1:1 no-untyped-def: Function is missing a type annotation" in result.text


def test_configured_mypy_missing_is_a_note(tmp_path):
    repo = python_repo(tmp_path / "calc")
    (repo / "mypy.ini").write_text("[mypy]\nstrict = True\n")
    venv_bin = repo / ".venv" / "bin"
    wrapper = tmp_path / "bare-python.py"
    # -I -S: no site-packages, so the interpreter running these tests cannot lend its own modules.
    wrapper.write_text(f"import os, sys\nos.execv({sys.executable!r}, [{sys.executable!r}, '-I', '-S'] + sys.argv[1:])\n")
    install_executable(venv_bin, "python", wrapper)
    result = BuildTool().run({}, ctx_for(repo))
    assert result.text.startswith("Build succeeded")
    assert f"mypy is configured but not installed for {venv_bin / 'python'}, so it did not run." in result.text


def test_missing_pytest_is_a_sentence(tmp_path):
    repo = python_repo(tmp_path / "calc")
    wrapper = tmp_path / "bare-python.py"
    wrapper.write_text(f"import os, sys\nos.execv({sys.executable!r}, [{sys.executable!r}, '-I', '-S'] + sys.argv[1:])\n")
    install_executable(repo / ".venv" / "bin", "python", wrapper)
    result = RunTestsTool().run({}, ctx_for(repo))
    assert result.is_error
    assert result.text == f"Error: pytest is not installed for {repo / '.venv' / 'bin' / 'python'}, so the tests could not run."


@pytest.mark.slow
def test_secret_printed_by_a_test_is_masked(tmp_path):
    repo = python_repo(tmp_path / "calc")
    token = "ghp_" + "Z1" * 18
    (repo / "tests" / "test_leak.py").write_text(
        f"def test_leak():\n    print('token {token}')\n    assert False, 'leaked {token}'\n"
    )
    result = RunTestsTool().run({}, ctx_for(repo))
    assert token not in result.text and token not in result.log
    assert "[masked: GitHub token]" in result.text
    assert "Note: " in result.text and "GitHub token, output line" in result.text


def test_build_of_one_file(tmp_path):
    repo = python_repo(tmp_path / "calc")
    (repo / "calc" / "broken.py").write_text("x = (\n")
    one = BuildTool().run({"project": "calc/__init__.py"}, ctx_for(repo))
    assert one.text.startswith("Build succeeded (Python (.venv): compile calc/__init__.py;")
    assert "compiled 1 Python files, 0 with errors" in one.log
    folder = BuildTool().run({"project": "calc"}, ctx_for(repo))
    assert "calc/broken.py:1:" in folder.text


@pytest.mark.slow
@pytest.mark.usefixtures("unsandboxed")
def test_the_log_header_is_the_command_really_run(tmp_path):
    """`$ pytest` over a run of `.venv/bin/python -m pytest -q ...` sent a user who copied it
    to another interpreter: the `$` line is what the interpreter was given, word for word."""
    import json
    import shlex

    repo = python_repo(tmp_path / "calc")
    python = repo / ".venv" / "bin" / "python"
    record = tmp_path / "argv.json"
    python.write_text(
        f"#!{sys.executable}\nimport json, os, sys\n"
        f"open({str(record)!r}, 'w').write(json.dumps(sys.argv))\n"
        f"os.execv({sys.executable!r}, [{sys.executable!r}] + sys.argv[1:])\n"
    )
    result = RunTestsTool().run({"filter": "add"}, ctx_for(repo))
    ran = [str(python)] + json.loads(record.read_text())[1:]
    assert "-m pytest -q" in shlex.join(ran)
    assert result.log.splitlines()[0] == "$ " + shlex.join(ran)

    (repo / "calc" / "broken.py").write_text("def f(:\n    pass\n")
    built = BuildTool().run({}, ctx_for(repo))
    header = built.log.splitlines()[0]
    assert header.startswith(f"$ {shlex.quote(str(python))} -c <") and "-line script> . " in header
