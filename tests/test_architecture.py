"""The rules engine stays pure: games.engine imports only itself and the standard library.

Two checks: import-linter's contract from pyproject.toml (direct and indirect imports of Django,
Channels, DRF, Celery and the platform packages), and a plain scan of every import statement
under games/engine against the stdlib (what a forbidden-list cannot say).
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
ENGINE_DIR = REPO / "games" / "engine"

# Third-party imports the engine may make, by module: the benchmark measures the `mahjong`
# package against our engine on the same hands.
ALLOWED_THIRD_PARTY = {"games.engine.bench": {"mahjong"}}


def run_lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    lint_imports = Path(sys.executable).with_name("lint-imports")
    command = (
        [str(lint_imports)]
        if lint_imports.exists()
        else [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command as c; sys.exit(c())"]
    )
    # PYTHONPATH makes grimp find the packages in `cwd` first, before the editable install's.
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    return subprocess.run([*command, "--no-cache"], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_engine_import_contract_is_kept():
    result = run_lint_imports(REPO)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 kept, 0 broken" in result.stdout


@pytest.mark.parametrize(
    ("probe", "reported"),
    [
        ("import django\n", "django"),
        ("from channels.layers import get_channel_layer\n", "channels"),
        ("from games import views\n", "games.views"),
        ("import mahjong_platform.settings\n", "mahjong_platform.settings"),
    ],
)
def test_the_contract_catches_an_impure_import(tmp_path, probe, reported):
    # Proves the contract has teeth, on a copy of the tree so the real engine is never touched.
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for package in ("games", "accounts", "mahjong_platform"):
        shutil.copytree(REPO / package, tmp_path / package, ignore=ignore)
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "games" / "engine" / "_probe_impure.py").write_text(probe)

    result = run_lint_imports(tmp_path)

    assert result.returncode != 0
    assert f"games.engine._probe_impure -> {reported}" in result.stdout


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """Every module an import statement in `path` names, with relative imports resolved."""
    this = module_name(path)
    package = this if path.name == "__init__.py" else this.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            found.append((node.lineno, name))
    return found


def is_allowed(importer: str, imported: str) -> bool:
    top = imported.partition(".")[0]
    if imported == "games.engine" or imported.startswith("games.engine."):
        return True
    if top in sys.stdlib_module_names:
        return True
    return any(
        (importer == owner or importer.startswith(owner + ".")) and top in allowed
        for owner, allowed in ALLOWED_THIRD_PARTY.items()
    )


def test_engine_imports_only_itself_and_the_standard_library():
    offences = [
        f"{path.relative_to(REPO)}:{line}: imports {imported}"
        for path in sorted(ENGINE_DIR.rglob("*.py"))
        for line, imported in imported_modules(path)
        if not is_allowed(module_name(path), imported)
    ]

    assert not offences, "games.engine must import only games.engine.* and the stdlib:\n" + "\n".join(offences)
