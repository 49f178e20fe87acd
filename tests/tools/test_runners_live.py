"""The test tool running real runners on small projects, asking each for its report.

Runners that are not installed skip with the reason; the real output of every runner is
read in test_runner_output.py, which runs everywhere (cargo's live run is in
test_build_other.py). The JavaScript runners other than
node's own are looked for on PATH or in DEVAGENT_NODE_MODULES (a node_modules folder with
jest, vitest, mocha or ava installed).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from agent.events import ToolOutcome
from agent.tools.build import RunTestsTool
from tests.repos import git_repo
from tests.tools.repos import ctx_for, reports_left

# Each test starts a real toolchain (node, go) on a project of its own.
pytestmark = pytest.mark.slow


def runner_path(name: str) -> str:
    folder = os.environ.get("DEVAGENT_NODE_MODULES")
    if folder and os.access(Path(folder) / ".bin" / name, os.X_OK):
        return str(Path(folder) / ".bin" / name)
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed here (set DEVAGENT_NODE_MODULES to a node_modules that has it)")
    return found


def node_package(root: Path, script: str, files: dict[str, str]) -> Path:
    repo = git_repo(root)
    (repo / "package.json").write_text(json.dumps({"name": "probe", "version": "1.0.0", "scripts": {"test": script}}))
    for name, text in files.items():
        (repo / name).write_text(text)
    return repo


def run_tests(repo: Path):
    before = reports_left()
    result = RunTestsTool().run({}, ctx_for(repo))
    assert reports_left() == before, "the report folder was left behind"
    return result


def test_node_test_runner_writes_junit(tmp_path):
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    repo = node_package(tmp_path / "pkg", "node --test", {
        "add.test.js": (
            "const test = require('node:test');\nconst assert = require('node:assert');\n"
            "test('adds', () => assert.strictEqual(1 + 1, 2));\n"
            "test('subtracts', () => assert.strictEqual(5 - 3, 3, 'five minus three is two'));\n"
        ),
    })
    result = run_tests(repo)
    assert result.summary == "1 failed, 1 passed", result.text
    assert result.outcome == ToolOutcome.FAILED
    assert "subtracts: five minus three is two" in result.text


JS_FAILING = "exports.half = n => n / 3;\n"
JS_TESTS = {
    "jest": ("half.test.js", "const {half} = require('./half');\ntest('halves', () => expect(half(8)).toBe(4));\ntest('zero', () => expect(half(0)).toBe(0));\n"),
    "vitest": ("half.test.mjs", "import {test, expect} from 'vitest';\nimport {half} from './half.js';\ntest('halves', () => expect(half(8)).toBe(4));\ntest('zero', () => expect(half(0)).toBe(0));\n"),
    "mocha": ("test/half.js", "const assert = require('assert');\nconst {half} = require('../half');\nit('halves', () => assert.strictEqual(half(8), 4));\nit('zero', () => assert.strictEqual(half(0), 0));\n"),
    "ava": ("test.js", "const test = require('ava');\nconst {half} = require('./half');\ntest('halves', t => t.is(half(8), 4));\ntest('zero', t => t.is(half(0), 0));\n"),
}


@pytest.mark.parametrize("runner", ["jest", "vitest", "mocha", "ava"])
def test_javascript_runners(tmp_path, monkeypatch, runner):
    binary = runner_path(runner)
    # the test files require the runner (AVA's API) from where it is installed
    monkeypatch.setenv("NODE_PATH", str(Path(binary).resolve().parents[2] if "node_modules" in binary else ""))
    name, text = JS_TESTS[runner]
    repo = node_package(tmp_path / "pkg", f"{binary} {'run' if runner == 'vitest' else ''}".strip(), {"half.js": JS_FAILING})
    (repo / name).parent.mkdir(exist_ok=True)
    (repo / name).write_text(text)
    result = run_tests(repo)
    assert result.summary == "1 failed, 1 passed", result.text
    assert "halves" in result.text and "Failed tests:" in result.text


def test_go_test_json(tmp_path):
    if shutil.which("go") is None:
        pytest.skip("go is not installed (Debian's golang-go has it)")
    repo = git_repo(tmp_path / "mod")
    (repo / "go.mod").write_text("module example.com/half\n\ngo 1.18\n")
    (repo / "half.go").write_text("package half\n\nfunc Half(n int) int { return n / 3 }\n")
    (repo / "half_test.go").write_text(
        'package half\n\nimport "testing"\n\n'
        'func TestHalves(t *testing.T) {\n\tif Half(8) != 4 {\n\t\tt.Fatalf("Half(8) = %d, want 4", Half(8))\n\t}\n}\n\n'
        "func TestZero(t *testing.T) {\n\tif Half(0) != 0 {\n\t\tt.Fatal(\"zero\")\n\t}\n}\n"
    )
    before = reports_left()
    result = RunTestsTool().run({}, ctx_for(repo))
    assert reports_left() == before
    # -json counts tests, not packages, and the log is the console text, not events
    assert result.summary == "1 failed, 1 passed", result.text
    assert "TestHalves: half_test.go:7: Half(8) = 2, want 4" in result.text
    assert '"Action"' not in result.log and "--- FAIL: TestHalves" in result.log
