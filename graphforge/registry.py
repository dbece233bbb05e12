"""One registry per extension point: named extensions found once, then listed, looked up and documented.

An extension point (trajectory formats, task families, file parsers, export kinds, stages) keeps its
entries in a :class:`Registry`. Entries come from three places, in this order, a later one of the same
name replacing an earlier one only when ``replace`` says so:

1. the package's own modules (each defines one attribute, e.g. ``FORMAT`` or ``FAMILY``);
2. installed distributions, through an entry point group (``graphforge.trajectory_formats``,
   ``graphforge.families``): ``toy = "toy_pkg.toy_format:FORMAT"`` (or a module holding the attribute);
3. folders of modules a caller names (families: ``GRAPHFORGE_FAMILY_DIRS``).

Everything derived from a registry (sniffing order, CLI choices and help, eval player kinds, the
Markdown tables in the docs) reads it, so adding an extension is adding its module. Discovery runs on
first use, not at import, and :meth:`Registry.refresh` repeats it (after installing a distribution).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import pkgutil
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Generic, TypeVar

from graphforge.errors import ConfigError

T = TypeVar("T")


@dataclass(frozen=True)
class Column(Generic[T]):
    """One column of a registry's Markdown table: its heading and how an entry fills it."""

    heading: str
    cell: Callable[[T], str]


class Registry(Generic[T]):
    """Named extensions of one kind, discovered once (lazily) from modules, entry points and folders.

    Args:
        kind: what an entry is, in messages ("trajectory format").
        kind_type: the entries' class; anything else found under ``attribute`` is ignored.
        name_of: an entry's unique name.
        packages: dotted packages whose modules (not starting with ``_``) are scanned for ``attribute``.
        attribute: the module attribute holding an entry (``FORMAT``, ``FAMILY``).
        group: the entry point group outside distributions register under (None: none).
        folders: called at discovery for folders of extra modules (a setting, an environment variable).
        rank: sort key of the entries (default: their name).
        columns: the Markdown table's columns (default: the name only).
        builtin: entries given directly, before the scanned ones (for extension points without modules).
    """

    def __init__(
        self,
        kind: str,
        kind_type: type[T],
        name_of: Callable[[T], str],
        *,
        packages: Sequence[str] = (),
        attribute: str = "",
        group: str | None = None,
        folders: Callable[[], Iterable[Path]] | None = None,
        rank: Callable[[T], Any] | None = None,
        columns: Sequence[Column[T]] = (),
        builtin: Callable[[], Iterable[T]] | None = None,
    ) -> None:
        self.kind, self.kind_type, self.name_of = kind, kind_type, name_of
        self.packages, self.attribute, self.group = tuple(packages), attribute, group
        self.folders, self.builtin = folders, builtin
        self._rank = rank
        self.columns: tuple[Column[T], ...] = tuple(columns) or (Column("name", name_of),)
        self._entries: dict[str, T] | None = None
        self._origins: dict[str, str] = {}
        self._lock = threading.RLock()

    # -- discovery --------------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Discover again (entry points installed or folders filled since the first use)."""
        with self._lock:
            self._entries = None
            self._origins = {}

    def _found(self) -> dict[str, T]:
        with self._lock:
            if self._entries is None:
                entries: dict[str, T] = {}
                for entry, origin in self._discover():
                    name = self.name_of(entry)
                    if name in entries and self._origins.get(name) != origin:
                        raise ConfigError(
                            f"{self.kind} {name!r} is defined twice: by {self._origins[name]} and by {origin}"
                        )
                    entries[name] = entry
                    self._origins[name] = origin
                self._entries = entries
            return self._entries

    def _discover(self) -> Iterator[tuple[T, str]]:
        if self.builtin is not None:
            for entry in self.builtin():
                yield entry, "graphforge"
        for package in self.packages:
            module = importlib.import_module(package)
            for info in sorted(pkgutil.iter_modules(module.__path__), key=lambda i: i.name):
                if info.name.startswith("_"):
                    continue
                name = f"{package}.{info.name}"
                yield from self._take(importlib.import_module(name), name)
        if self.group is not None:
            for point in sorted(importlib.metadata.entry_points(group=self.group), key=lambda p: p.name):
                try:
                    loaded = point.load()
                except Exception as exc:  # a broken plugin names itself, it does not crash discovery silently
                    raise ConfigError(
                        f"{self.kind} entry point {point.name!r} ({point.value}) cannot be loaded: "
                        f"{type(exc).__name__}: {exc}"
                    ) from exc
                origin = f"entry point {point.group}:{point.name}"
                if isinstance(loaded, ModuleType):
                    yield from self._take(loaded, origin)
                elif isinstance(loaded, self.kind_type):
                    yield loaded, origin
                else:
                    raise ConfigError(
                        f"{origin} ({point.value}) is a {type(loaded).__name__}, not a {self.kind}"
                    )
        for folder in self.folders() if self.folders is not None else ():
            for info in sorted(pkgutil.iter_modules([str(folder)]), key=lambda i: i.name):
                if not info.name.startswith("_"):
                    path = folder / f"{info.name}.py"
                    yield from self._take(load_module_file(path), str(path))

    def _take(self, module: ModuleType, origin: str) -> Iterator[tuple[T, str]]:
        entry = getattr(module, self.attribute, None) if self.attribute else None
        if isinstance(entry, self.kind_type):
            yield entry, origin

    # -- reading ----------------------------------------------------------------------------------------
    def entries(self) -> list[T]:
        """Every entry, in rank order."""
        found = list(self._found().values())
        return sorted(found, key=self._rank) if self._rank is not None else sorted(found, key=self.name_of)

    def names(self) -> list[str]:
        """Every entry's name, in rank order."""
        return [self.name_of(e) for e in self.entries()]

    def get(self, name: str) -> T:
        """The entry called ``name``; a ConfigError listing the known names otherwise."""
        found = self._found()
        if name not in found:
            raise ConfigError(f"unknown {self.kind} {name!r}; known: {', '.join(self.names())}")
        return found[name]

    def origin(self, name: str) -> str:
        """Where the entry came from: ``graphforge`` modules, an entry point or a folder."""
        self._found()
        return self._origins[name]

    def __contains__(self, name: object) -> bool:
        return name in self._found()

    def __iter__(self) -> Iterator[T]:
        return iter(self.entries())

    def __len__(self) -> int:
        return len(self._found())

    def markdown(self) -> str:
        """The registry as a Markdown table, one row per entry in rank order (for the docs)."""
        head = "| " + " | ".join(c.heading for c in self.columns) + " |"
        rule = "|" + "|".join("---" for _ in self.columns) + "|"
        rows = ["| " + " | ".join(_cell(c.cell(e)) for c in self.columns) + " |" for e in self.entries()]
        return "\n".join([head, rule, *rows]) + "\n"


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def load_module_file(path: Path) -> ModuleType:
    """Import one ``.py`` file outside any package (a configured folder's module) under a private name."""
    name = f"graphforge_ext_{abs(hash(str(path.resolve()))):x}_{path.stem}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ConfigError(f"{path}: cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception:
        del sys.modules[name]
        raise
    return module


def registries_markdown(registries: Iterable[tuple[str, Registry[Any]]]) -> str:
    """Several registries as Markdown: a ``###`` heading per registry, then its table."""
    return "\n".join(f"### {title}\n\n{registry.markdown()}" for title, registry in registries)
