"""A crawled folder with code planted in it: modules named like the libraries GraphForge's processes import.

Each planted module (and the .pth file) writes a marker named after itself into ``markers`` and into the
current directory of whoever imports it, so a test can tell whether anything ran, and where.
"""

from __future__ import annotations

from pathlib import Path

# What the parser workers, the sandbox bootstrap and the model server import, and the start-up hooks.
PLANTED_MODULES = (
    "secrets", "json", "typing", "zipfile", "sitecustomize", "usercustomize",
    "pypdf", "openpyxl", "docx", "pptx", "bs4", "socket", "runpy", "resource",
)


def _body(name: str, markers: Path) -> str:
    return (
        "import os as _os\n"
        f"for _d in ({str(markers)!r}, _os.getcwd()):\n"
        "    try:\n"
        f"        open(_os.path.join(_d, 'MARK-{name}'), 'w').close()\n"
        "    except OSError:\n"
        "        pass\n"
    )


def plant(folder: Path, markers: Path) -> None:
    """Plant every module and a .pth file in ``folder`` (created if missing)."""
    folder.mkdir(parents=True, exist_ok=True)
    markers.mkdir(parents=True, exist_ok=True)
    for name in PLANTED_MODULES:
        (folder / f"{name}.py").write_text(_body(name, markers), encoding="utf-8")
    pth_line = f"import os; open(os.path.join({str(markers)!r}, 'MARK-pth'), 'w').close()\n"
    (folder / "graphforge-evil.pth").write_text(pth_line, encoding="utf-8")


def markers_found(*roots: Path) -> list[str]:
    """Every marker file under ``roots`` (relative to its root), sorted."""
    return sorted(str(p.relative_to(root)) for root in roots if root.exists() for p in root.rglob("MARK-*"))
