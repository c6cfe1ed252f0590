"""The rules engine stays pure, whole and entered by its front door.

* Pure: games.engine imports only itself and the standard library.  Two checks: import-linter's
  contract from pyproject.toml (direct and indirect imports of Django, Channels, DRF, Celery and
  the platform packages), and a plain scan of every import statement under games/engine against
  the stdlib (what a forbidden-list cannot say).
* One front door: outside the engine, code imports from ``games.engine`` only, never one of its
  modules (import-linter's second contract).
* Whole: the engine's modules import one another without a cycle (type-only imports count), and
  the rule sets move a hand on through its public methods, never a ``Hand._private`` one.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import grimp
import pytest

from games.engine.hand import Hand

REPO = Path(__file__).resolve().parent.parent
ENGINE_DIR = REPO / "games" / "engine"
IMPORT_LINTER = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]

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


def test_engine_import_contracts_are_kept():
    result = run_lint_imports(REPO)

    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{len(IMPORT_LINTER['contracts'])} kept, 0 broken" in result.stdout


def lint_with_probe(tmp_path: Path, probe_path: str, probe: str) -> subprocess.CompletedProcess[str]:
    """import-linter on a copy of the tree with one extra module, so the real tree is never touched."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for package in IMPORT_LINTER["root_packages"]:
        shutil.copytree(REPO / package, tmp_path / package, ignore=ignore)
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / probe_path).write_text(probe)
    return run_lint_imports(tmp_path)


@pytest.mark.parametrize(
    ("probe", "reported"),
    [
        ("import django\n", "django"),
        ("from channels.layers import get_channel_layer\n", "channels"),
        ("from games.web import views\n", "games.web.views"),
        ("import mahjong_platform.settings\n", "mahjong_platform.settings"),
    ],
)
def test_the_contract_catches_an_impure_import(tmp_path, probe, reported):
    result = lint_with_probe(tmp_path, "games/engine/_probe_impure.py", probe)

    assert result.returncode != 0
    assert f"games.engine._probe_impure -> {reported}" in result.stdout


@pytest.mark.parametrize(
    ("probe_path", "probe", "reported"),
    [
        ("games/_probe_deep.py", "from games.engine.hand import Hand\n", "games._probe_deep -> games.engine.hand"),
        (
            "tournaments/_probe_deep.py",
            "import games.engine.variants.base\n",
            "tournaments._probe_deep -> games.engine.variants.base",
        ),
        (
            "games/services/_probe_deep.py",
            "from games.engine.insight.hints import hints\n",
            "games.services._probe_deep -> games.engine.insight.hints",
        ),
    ],
)
def test_the_contract_catches_an_import_past_the_front_door(tmp_path, probe_path, probe, reported):
    result = lint_with_probe(tmp_path, probe_path, probe)

    assert result.returncode != 0
    assert reported in result.stdout


def test_the_front_door_itself_is_open(tmp_path):
    result = lint_with_probe(tmp_path, "games/_probe_front_door.py", "from games.engine import Hand, load_hand\n")

    assert result.returncode == 0, result.stdout + result.stderr


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


def test_the_engine_imports_form_no_cycle():
    # Type-only imports (under TYPE_CHECKING) count: a cycle hidden from the interpreter is
    # still two modules that cannot be understood, or changed, one without the other.
    graph = grimp.build_graph("games", cache_dir=None)
    engine = {m for m in graph.modules if m == "games.engine" or m.startswith("games.engine.")}
    # Each import a -> b with a way back from b to a closes a cycle: a -> b -> ... -> a.
    cycles = {
        (importer, *(graph.find_shortest_chain(importer=imported, imported=importer) or ()))
        for importer in sorted(engine)
        for imported in graph.find_modules_directly_imported_by(importer) & engine
        if graph.chain_exists(importer=imported, imported=importer)
    }

    assert {"games.engine.hand", "games.engine.variants.base"} <= engine
    assert not cycles, "import cycles inside games.engine:\n" + "\n".join(" -> ".join(c) for c in sorted(cycles))


# Hand's own private members: what a rule set reaching into the machine would name.
HAND_PRIVATE = {name for name in vars(Hand) if name.startswith("_") and not name.startswith("__")}


def test_rule_sets_call_no_private_hand_method():
    offences = [
        f"{path.relative_to(REPO)}:{node.lineno}: {ast.unparse(node)}"
        for path in sorted((ENGINE_DIR / "variants").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
        if isinstance(node, ast.Attribute)
        and node.attr in HAND_PRIVATE
        and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
    ]

    assert HAND_PRIVATE, "Hand has private methods to guard"
    assert not offences, "rule sets must use Hand's public methods (docs/engine.md):\n" + "\n".join(offences)


@pytest.mark.parametrize(
    ("room", "probe", "reported"),
    [
        ("runtime", "from games import services\n", "games.services"),
        ("wire", "from games.runtime import fanout\n", "games.runtime.fanout"),
        ("services", "from games.tools import claimprobe\n", "games.tools.claimprobe"),
    ],
)
def test_the_rooms_contract_catches_an_import_that_runs_up(tmp_path, room, probe, reported):
    # A lower room importing a higher one breaks the layers contract (on a copy of the tree).
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for package in ("games", "accounts", "mahjong_platform"):
        shutil.copytree(REPO / package, tmp_path / package, ignore=ignore)
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "games" / room / "_probe_upward.py").write_text(probe)

    result = run_lint_imports(tmp_path)

    assert result.returncode != 0
    assert f"games.{room}._probe_upward -> {reported}" in result.stdout
