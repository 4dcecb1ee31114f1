"""The shape of the package code: modules over 500 lines, functions over 80, `getattr` calls and
`dict`/`Mapping[str, Any]` annotations (the limits tests/test_architecture.py keeps).

Usage: python scripts/code_shape.py [REPOSITORY]   (default: this one; any checkout, to compare).
Reads only the repository's own package folders; prints one line per measure.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

PACKAGES = ("app", "scene", "theory", "translators", "trust", "evaluation")
ANY_MAPPING = re.compile(r"\b(?:dict|Mapping|MutableMapping)\[str,\s*Any\]")


def main() -> int:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[1])
    long_modules, long_functions, getattrs, any_mappings = [], [], 0, 0
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            name = path.relative_to(root).as_posix()
            if (lines := len(text.splitlines())) > 500:
                long_modules.append(f"{name} ({lines})")
            any_mappings += len(ANY_MAPPING.findall(text))
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    length = (node.end_lineno or node.lineno) - node.lineno + 1
                    if length > 80:
                        long_functions.append(f"{name}:{node.name} ({length})")
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr":
                    getattrs += 1
    print(f"modules over 500 lines: {len(long_modules)} {long_modules}")
    print(f"functions over 80 lines: {len(long_functions)} {long_functions}")
    print(f"getattr calls: {getattrs}")
    print(f"dict/Mapping[str, Any]: {any_mappings}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
