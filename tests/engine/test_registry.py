"""The rule-set registry is static: whatever a process imports first, all five rule sets are known.

Each import-order check runs in a fresh interpreter, since this process has long since imported
everything (the registry once loaded the rule sets only while it was empty, so importing one
rule-set module first left the other four unknown).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from games.engine.variants import VARIANT_MODULES, all_variants, get_variant

ROOT = Path(__file__).resolve().parents[2]
VARIANTS_DIR = ROOT / "games" / "engine" / "variants"
KEYS = ("zhejiang_caishen", "zhedong_de", "wenzhou", "zhangzhou", "dongbei")

# Every rule-set module (package, Variant, helpers), plus the engine modules that import one
# rule set's helpers directly (bots reads 漳州's verbs).
FIRST_IMPORTS = [
    f"games.engine.variants.{key}" + (f".{part}" if part else "")
    for key in KEYS
    for part in ("", "rules", "hands", "scoring")
    if (VARIANTS_DIR / key / f"{part or '__init__'}.py").exists()
] + ["games.engine.variants.base", "games.engine.bots", "games.engine.shapes", "games.engine.hand"]


def known_after_importing(module: str) -> list[str]:
    code = f"import {module}\nfrom games.engine.variants import all_variants\nprint(*[v.key for v in all_variants()])"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split()


@pytest.mark.parametrize("module", FIRST_IMPORTS)
def test_importing_any_rule_set_module_first_registers_all_five(module: str) -> None:
    assert sorted(known_after_importing(module)) == sorted(KEYS)


def test_the_registry_holds_one_package_per_rule_set() -> None:
    assert VARIANT_MODULES == KEYS
    assert [v.key for v in all_variants()] == sorted(KEYS)
    for key in KEYS:
        variant = get_variant(key)
        # The key names the package, and the Variant class lives in the package's rules.py.
        assert type(variant).__module__ == f"games.engine.variants.{key}.rules"
        assert (VARIANTS_DIR / key / "__init__.py").exists()
    packages = sorted(p.name for p in VARIANTS_DIR.iterdir() if (p / "__init__.py").exists())
    assert packages == sorted(KEYS)


def test_unknown_keys_are_refused_with_the_known_ones() -> None:
    with pytest.raises(ValueError, match="unknown variant 'riichi'; known: dongbei, wenzhou"):
        get_variant("riichi")


def test_the_registry_loads_nothing_dynamically() -> None:
    tree = ast.parse((VARIANTS_DIR / "__init__.py").read_text(encoding="utf-8"))
    imported = {
        alias.name for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom) for alias in node.names
    }
    modules = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not {"importlib", "import_module", "find_spec"} & (imported | modules)
    assert {f"games.engine.variants.{key}" for key in KEYS} <= modules


def test_rule_set_packages_never_import_the_registry() -> None:
    # The registry imports the packages; a package importing the registry back would be a cycle.
    offences = []
    for path in sorted(VARIANTS_DIR.glob("*/*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "games.engine.variants":
                offences.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            if isinstance(node, ast.Import) and any(a.name == "games.engine.variants" for a in node.names):
                offences.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not offences
