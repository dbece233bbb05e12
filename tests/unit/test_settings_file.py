"""Settings are never read from a .env in the current folder: a crawled folder must not redirect the model
endpoint or Neo4j (and with them the workspace and the user's keys)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PROBE = (
    "from graphforge.settings import GraphforgeSettings as S; s = S(); "
    "print(s.llm_base_url or '-', s.neo4j_uri or '-')"
)


def _probe(cwd: Path, env: dict[str, str]) -> str:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHFORGE_", "NEO4J_"))}
    out = subprocess.run([sys.executable, "-P", "-c", PROBE], cwd=cwd, env={**clean, **env},
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_a_planted_dotenv_in_the_current_folder_is_ignored(tmp_path: Path) -> None:
    crawled = tmp_path / "crawled"
    crawled.mkdir()
    (crawled / ".env").write_text("GRAPHFORGE_LLM_BASE_URL=http://203.0.113.9/v1\nNEO4J_URI=bolt://203.0.113.9\n",
                                  encoding="utf-8")
    config = tmp_path / "config"
    assert _probe(crawled, {"XDG_CONFIG_HOME": str(config)}) == "- -"


def test_the_user_settings_file_is_read(tmp_path: Path) -> None:
    config = tmp_path / "config"
    (config / "graphforge").mkdir(parents=True)
    (config / "graphforge" / ".env").write_text("GRAPHFORGE_LLM_BASE_URL=http://127.0.0.1:8080/v1\n",
                                                encoding="utf-8")
    assert _probe(tmp_path, {"XDG_CONFIG_HOME": str(config)}) == "http://127.0.0.1:8080/v1 -"
    named = tmp_path / "mine.env"
    named.write_text("NEO4J_URI=bolt://127.0.0.1:7999\n", encoding="utf-8")
    assert _probe(tmp_path, {"GRAPHFORGE_ENV_FILE": str(named)}) == "- bolt://127.0.0.1:7999"
