"""build and test with the real cargo, npm and go, each skipped when it is not installed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agent.tools.build import BuildTool, RunTestsTool
from tests.repos import git_repo
from tests.tools.repos import ctx_for, has

# Read before the fixtures move HOME: rustup finds its toolchains through the real one.
REAL_HOME = Path.home()


@pytest.fixture
def rust_env(monkeypatch):
    if not has("cargo"):
        pytest.skip("cargo is not installed on this machine")
    for name, folder in (("CARGO_HOME", ".cargo"), ("RUSTUP_HOME", ".rustup")):
        if not os.environ.get(name) and (REAL_HOME / folder).is_dir():
            monkeypatch.setenv(name, str(REAL_HOME / folder))
    monkeypatch.setenv("CARGO_NET_OFFLINE", "true")


def rust_crate(root: Path, body: str) -> Path:
    repo = git_repo(root)
    (repo / "Cargo.toml").write_text('[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n')
    (repo / "src").mkdir()
    (repo / "src" / "main.rs").write_text(body)
    return repo


@pytest.mark.slow
def test_cargo_build_error(tmp_path, rust_env):
    repo = rust_crate(tmp_path / "demo", "fn main() {\n    let y = x;\n}\n")
    result = BuildTool().run({}, ctx_for(repo))
    assert result.text.startswith("Build failed (Rust: cargo build; exit code 101,")
    assert "src/main.rs:2:13 E0425: cannot find value `x` in this scope" in result.text


@pytest.mark.slow
def test_cargo_test_failure(tmp_path, rust_env):
    repo = rust_crate(
        tmp_path / "demo",
        "fn main() {}\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn ok() {}\n"
        "    #[test]\n    fn bad() { assert_eq!(1, 2, \"one is not two\"); }\n}\n",
    )
    result = RunTestsTool().run({}, ctx_for(repo))
    assert result.text.startswith("Tests failed (Rust: cargo test;")
    assert "1 failed, 1 passed" in result.text
    assert "tests::bad: assertion `left == right` failed: one is not two" in result.text


@pytest.fixture
def node_env():
    if not (has("npm") and has("node")):
        pytest.skip("npm is not installed on this machine")


@pytest.mark.slow
def test_npm_build_script_with_tsc_shaped_errors(tmp_path, node_env):
    repo = git_repo(tmp_path / "web")
    (repo / "package.json").write_text(json.dumps({"name": "web", "version": "1.0.0", "scripts": {"build": "node build.js"}}))
    (repo / "build.js").write_text(
        "console.log(\"src/cart.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.\");\n"
        "console.error(\"src/cart.ts:12:5 - error TS2322: Type 'string' is not assignable to type 'number'.\");\n"
        "process.exit(2);\n"
    )
    result = BuildTool().run({}, ctx_for(repo))
    assert result.text.startswith("Build failed (Node: npm run build; exit code 2,")
    assert "src/cart.ts:12:5 TS2322: Type 'string' is not assignable to type 'number'." in result.text
    # The two shapes tsc prints for one error are still one error.
    assert "1 error, 0 warnings" in result.text


@pytest.mark.slow
def test_npm_test_with_node_test_runner(tmp_path, node_env):
    repo = git_repo(tmp_path / "web")
    (repo / "package.json").write_text(json.dumps({"name": "web", "version": "1.0.0", "scripts": {"test": "node --test"}}))
    (repo / "cart.test.js").write_text(
        "const test = require('node:test');\nconst assert = require('node:assert');\n"
        "test('adds items', () => assert.strictEqual(1 + 1, 2));\n"
        "test('applies discount', () => assert.strictEqual(10 * 0.9, 8));\n"
    )
    result = RunTestsTool().run({}, ctx_for(repo))
    assert result.text.startswith("Tests failed (Node: npm run test;")
    assert "1 failed, 1 passed" in result.text
    assert "applies discount" in result.text


@pytest.fixture
def go_env(tmp_path, monkeypatch):
    if not has("go"):
        pytest.skip("go is not installed on this machine")
    monkeypatch.setenv("GOFLAGS", "-mod=mod")
    monkeypatch.setenv("GOCACHE", str(tmp_path / "gocache"))
    monkeypatch.setenv("GOPATH", str(tmp_path / "gopath"))


@pytest.mark.slow
def test_go_build_and_test(tmp_path, go_env):
    repo = git_repo(tmp_path / "svc")
    (repo / "go.mod").write_text("module example.com/svc\n\ngo 1.21\n")
    (repo / "main.go").write_text("package main\n\nfunc main() {\n\t_ = missing\n}\n")
    built = BuildTool().run({}, ctx_for(repo))
    assert "main.go:4:6" in built.text and "undefined: missing" in built.text
    (repo / "main.go").write_text("package main\n\nfunc main() {}\n\nfunc Add(a, b int) int { return a - b }\n")
    (repo / "main_test.go").write_text(
        'package main\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 2) != 4 {\n\t\tt.Errorf("Add(2, 2) is not 4")\n\t}\n}\n'
    )
    tested = RunTestsTool().run({}, ctx_for(repo))
    assert "TestAdd" in tested.text and "1 failed" in tested.text
