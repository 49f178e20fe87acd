"""The test tool names each failed pytest test by its node id, as pytest's own -rf does,
for class-based, inherited and parametrized tests, and takes such ids back as its filter."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from agent.tools.build import RunTestsTool
from tests.tools.repos import ctx_for, python_repo

BASE = '''\
import pytest

from calc import add


class TestAdd:
    def test_add(self):
        assert add(2, 2) == 5

    @pytest.mark.parametrize("a", [1, 2], ids=["one", "two"])
    def test_param(self, a):
        assert add(a, 0) == a + 1

    class TestInner:
        def test_nested(self):
            assert add(0, 0) == 1


@pytest.mark.parametrize("value", [{"a": 1}, 3.5])
def test_plain(value):
    assert value is None
'''
# The inherited class collects TestAdd's methods again under this file and its own name:
# pytest's -rf names them here; the JUnit report's `file` names test_base.py.
DERIVED = '''\
from tests.unit.test_base import TestAdd


class TestAddAgain(TestAdd):
    pass
'''


@pytest.fixture
def classy(tmp_path):
    repo = python_repo(tmp_path / "calc")
    (repo / "tests" / "test_calc.py").unlink()
    (repo / "tests" / "unit").mkdir()
    for folder in ("tests", "tests/unit"):
        (repo / folder / "__init__.py").write_text("")
    (repo / "tests" / "unit" / "test_base.py").write_text(BASE)
    (repo / "tests" / "unit" / "test_derived.py").write_text(DERIVED)
    return repo


def pytest_own_failures(repo) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rf", "-p", "no:cacheprovider", "--color=no"],
        cwd=repo, capture_output=True, text=True, env={"COLUMNS": "300", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(repo)},
    )
    return sorted(m.group(1) for m in re.finditer(r"^FAILED (\S+(?:\[[^\]]*\])?)", done.stdout, re.M))


def reported(result) -> list[str]:
    block = result.text.split("Failed tests:\n", 1)[1]
    return sorted(line.strip().split(": ", 1)[0] for line in block.splitlines() if line.startswith("  ") and "::" in line)


@pytest.mark.slow
def test_failed_tests_are_named_as_pytest_names_them(classy):
    expected = pytest_own_failures(classy)
    assert "tests/unit/test_derived.py::TestAddAgain::test_param[two]" in expected
    assert "tests/unit/test_base.py::TestAdd::TestInner::test_nested" in expected
    # test_derived.py collects the imported TestAdd too, under its own file
    assert "tests/unit/test_derived.py::TestAdd::test_add" in expected
    assert len(expected) == 14
    result = RunTestsTool().run({}, ctx_for(classy))
    assert result.summary.startswith("14 failed, 0 passed")
    assert reported(result) == expected


@pytest.mark.slow
def test_a_reported_id_is_taken_back_as_the_filter(classy):
    one = "tests/unit/test_derived.py::TestAddAgain::test_param[one]"
    result = RunTestsTool().run({"filter": one}, ctx_for(classy))
    assert result.summary.startswith("1 failed, 0 passed")
    assert reported(result) == [one]
    two = RunTestsTool().run({"filter": f"{one} tests/unit/test_base.py::test_plain[value0]"}, ctx_for(classy))
    assert two.summary.startswith("2 failed, 0 passed")
    # a -k expression still works, and an id naming a file outside is refused
    assert RunTestsTool().run({"filter": "nested"}, ctx_for(classy)).summary.startswith("3 failed, 0 passed")
    outside = RunTestsTool().run({"filter": "../x/test_a.py::test_b"}, ctx_for(classy))
    assert outside.is_error and "'..' segments are not allowed" in outside.text
    missing = RunTestsTool().run({"filter": "tests/test_none.py::test_b"}, ctx_for(classy))
    assert missing.text == "Error: there is no test file tests/test_none.py in the repository."
