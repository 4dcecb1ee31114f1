"""The package layout holds: no import circle, dependencies point downwards, small evaluation modules."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).parents[1]
PACKAGES = ("theory", "translators", "scene", "trust", "evaluation", "app")
# What each package may import (docs: DESIGN.md section 1); the service never imports evaluation/.
ALLOWED = {
    "theory": {"theory"},
    "translators": {"theory", "translators"},
    "scene": {"theory", "scene"},
    "trust": {"theory", "translators", "scene", "trust"},
    "evaluation": {"theory", "translators", "scene", "trust", "evaluation"},
    "app": {"theory", "translators", "scene", "trust", "evaluation", "app"},
}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking_only(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return True
    return False


def imports(path: Path, known: set[str], *, for_typing: bool = False) -> set[str]:
    """The project modules `path` imports anywhere (also inside functions); those imported only for
    type checking too when `for_typing`. `from package import name` imports the package's __init__."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found: set[str] = set()
    for node in ast.walk(tree):
        if not for_typing and _type_checking_only(node, parents):
            continue
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        found |= {n for n in names if n in known}
    return found


@cache  # the files do not change during a test run; several tests read the graph
def graph(for_typing: bool = False) -> dict[str, set[str]]:
    files = {module_name(p): p for package in PACKAGES for p in (ROOT / package).rglob("*.py")}
    return {name: imports(path, set(files), for_typing=for_typing) - {name} for name, path in files.items()}


def first_circle(edges: dict[str, set[str]]) -> list[str] | None:
    """The first import circle found in `edges` (its modules, the first repeated at the end), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for target in sorted(edges.get(node, ())):
            if state.get(target) == 1:
                return stack[stack.index(target) :] + [target]
            if target not in state and (circle := visit(target)):
                return circle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (circle := visit(node)):
            return circle
    return None


def test_no_import_circle():
    # Every import counts: inside functions, for type checking only, and of a package's __init__. A
    # package may re-export its modules for its users; its modules then import each other by their
    # own names, never from the package.
    circle = first_circle(graph(for_typing=True))
    assert circle is None, "import circle: " + " -> ".join(circle or [])


def test_circles_through_a_package_or_a_type_checking_import_are_found(tmp_path):
    # The two ways circles hid before.
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("from pkg.inner import run\n")
    (package / "inner.py").write_text("from pkg import helper\n")
    (package / "helper.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.other import X\n"
    )
    (package / "other.py").write_text("from pkg.helper import Y\n")
    known = {"pkg", "pkg.inner", "pkg.helper", "pkg.other"}
    paths = {"pkg": package / "__init__.py"} | {name: package / f"{name[4:]}.py" for name in known - {"pkg"}}
    edges = {name: imports(path, known, for_typing=True) for name, path in paths.items()}
    assert first_circle(edges) == ["pkg", "pkg.inner", "pkg"]
    del edges["pkg"]
    assert first_circle(edges) == ["pkg.helper", "pkg.other", "pkg.helper"]
    assert imports(paths["pkg.helper"], known) == set()  # the other tests' graph leaves it out


def test_dependencies_point_downwards():
    wrong = [
        f"{source} imports {target}"
        for source, targets in graph().items()
        for target in targets
        if target.partition(".")[0] not in ALLOWED[source.partition(".")[0]]
    ]
    assert not wrong, wrong


# The rooms of `translators/`, by stage, and the rooms each may import (docs/architecture.md). The
# modules at the top (the Translator, its settings and result records) may import every room; a
# room imports no top module except the package's root error.
TRANSLATOR_ROOMS = {
    "wording": set(),
    "gqa": {"wording"},
    "examples": {"wording", "gqa"},
    "rules": {"wording", "examples"},
    "checks": {"wording", "rules"},
    "model": {"wording", "gqa", "examples"},
}


def _translators_room(module: str) -> str | None:
    """The room of a translators module, "" for the package's top modules, None outside it."""
    parts = module.split(".")
    if parts[0] != "translators":
        return None
    return parts[1] if len(parts) > 1 and parts[1] in TRANSLATOR_ROOMS else ""


def test_translator_rooms_point_one_way():
    assert {p.name for p in (ROOT / "translators").iterdir() if (p / "__init__.py").exists()} == set(TRANSLATOR_ROOMS)
    wrong = []
    for source, targets in graph().items():
        room = _translators_room(source)
        if not room:
            continue
        for target in targets:
            other = _translators_room(target)
            allowed = {room, *TRANSLATOR_ROOMS[room]}
            if other == "" and target not in {"translators", "translators.errors"}:
                wrong.append(f"{source} imports the top module {target}")
            elif other and other not in allowed:
                wrong.append(f"{source} imports {target}")
    assert not wrong, wrong


def test_evaluation_modules_are_small():
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in (ROOT / "evaluation").glob("*.py")}
    assert max(sizes.values()) <= 500, sizes


def test_one_meaning_per_name():
    # A public class or function is defined in one module only (re-exports are imports, not definitions).
    places: dict[str, list[str]] = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.parse(path.read_text(encoding="utf-8")).body:
                if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and not node.name.startswith("_"):
                    places.setdefault(node.name, []).append(module_name(path))
    assert {name: where for name, where in places.items() if len(where) > 1} == {}


# Environment variables that are not the project's settings: the platform's cache convention and the
# name of an API key variable that an OpenAI-compatible backend is given as a parameter.
_ENVIRONMENT_READS_ALLOWED = {
    ("theory/cache.py", "XDG_CACHE_HOME"),
    ("translators/model/backends/openai_compat.py", ""),
}


def _environment_read(node: ast.AST) -> ast.expr | None:
    """The name expression of an `os.environ.get(...)`, `os.getenv(...)` or `os.environ[...]` read."""
    if isinstance(node, ast.Call) and node.args:
        function = ast.unparse(node.func)
        if function in ("os.environ.get", "os.getenv"):
            return node.args[0]
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and ast.unparse(node.value) == "os.environ":
        return node.slice
    return None


def test_settings_are_read_from_the_environment_only_by_the_settings_module():
    """Every ASPVQA_* value is read once, in app/config.py; the layers get it as a parameter."""
    found = []
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            relative = path.relative_to(ROOT).as_posix()
            if relative == "app/config.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                read = _environment_read(node)
                if read is None:
                    continue
                name = read.value if isinstance(read, ast.Constant) else ""
                if (relative, name) not in _ENVIRONMENT_READS_ALLOWED:
                    found.append(f"{relative}:{getattr(node, 'lineno', 0)} reads {name or ast.unparse(read)}")
    assert found == []


def _protocol_members() -> dict[str, str]:
    """Member name -> the Protocol that declares it, for every Protocol class of the project."""
    members: dict[str, str] = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.ClassDef):
                    continue
                bases = {ast.unparse(b.value if isinstance(b, ast.Subscript) else b) for b in node.bases}
                if not bases & {"Protocol", "typing.Protocol"}:
                    continue
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        names = [item.name]
                    elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                        names = [item.target.id]
                    elif isinstance(item, ast.Assign):
                        names = [t.id for t in item.targets if isinstance(t, ast.Name)]
                    else:
                        names = []
                    for name in names:
                        if not name.startswith("__"):
                            members[name] = f"{module_name(path)}.{node.name}"
    return members


def test_protocol_members_are_used_not_probed():
    """A member some Protocol declares is read as an attribute, never probed with getattr/hasattr."""
    members = _protocol_members()
    assert {"keeps_prefix", "warm_up", "knows"} <= set(members)  # the collection itself works
    found = []
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                    continue
                if node.func.id not in ("getattr", "hasattr") or len(node.args) < 2:
                    continue
                name = node.args[1]
                if isinstance(name, ast.Constant) and name.value in members:
                    relative = path.relative_to(ROOT).as_posix()
                    found.append(f"{relative}:{node.lineno} probes {name.value!r} ({members[name.value]})")
    assert found == []


def test_the_app_imports_evaluation_only_from_the_composition_root_and_the_commands():
    """The service side (pipeline, API, solver pool) never reaches into the offline job."""
    wrong = [
        f"{source} imports {target}"
        for source, targets in graph().items()
        if source.startswith("app.") and source != "app.components" and not source.startswith("app.commands")
        for target in targets
        if target.partition(".")[0] == "evaluation"
    ]
    assert wrong == []


# The room each module and function has, and the untyped seams and probes a package may keep.
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 80
MAX_GETATTR = 10
MAX_ANY_MAPPINGS = 60
_ANY_MAPPING = re.compile(r"\b(?:dict|Mapping|MutableMapping)\[str,\s*Any\]")


def _package_files() -> list[Path]:
    return sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))


def test_no_module_is_over_500_lines():
    long = {
        p.relative_to(ROOT).as_posix(): n
        for p in _package_files()
        if (n := len(p.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}


def test_no_function_is_over_80_lines():
    long = []
    for path in _package_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(ROOT).as_posix()}:{node.lineno} {node.name} ({lines} lines)")
    assert long == []


def test_getattr_and_untyped_mappings_stay_few():
    """Attributes are read by name and records are typed: getattr and dict/Mapping[str, Any] stay rare."""
    getattrs = anys = 0
    for path in _package_files():
        text = path.read_text(encoding="utf-8")
        anys += len(_ANY_MAPPING.findall(text))
        getattrs += sum(
            isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
            for node in ast.walk(ast.parse(text))
        )
    assert getattrs <= MAX_GETATTR
    assert anys <= MAX_ANY_MAPPINGS


ROOT_ERRORS = {
    "theory": "theory.errors.TheoryError",
    "translators": "translators.errors.TranslatorError",
    "scene": "scene.errors.SceneError",
    "trust": "trust.errors.TrustError",
    "evaluation": "evaluation.errors.EvaluationError",
    "app": "app.errors.AppError",
}


def test_each_layers_errors_have_one_root():
    """`except TranslatorError` (say) catches everything translators raise on purpose, as httpx's tree does."""
    import importlib
    import inspect

    outside = []
    for package, root_path in ROOT_ERRORS.items():
        module_path, _, root_name = root_path.rpartition(".")
        root = getattr(importlib.import_module(module_path), root_name)
        for path in (ROOT / package).rglob("*.py"):
            if path.name == "__main__.py":  # runs the command line when imported
                continue
            module = importlib.import_module(module_name(path))
            for name, found in vars(module).items():
                defined_here = inspect.isclass(found) and found.__module__ == module.__name__
                if defined_here and issubclass(found, Exception) and not name.startswith("_"):
                    if not issubclass(found, root):
                        outside.append(f"{module.__name__}.{name}")
    assert outside == []
