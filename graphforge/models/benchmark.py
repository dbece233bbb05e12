"""Evaluation benchmarks: task sets with prompts, occupations, reference files (audited, never trained on)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from graphforge.models.base import Frozen, Row, stable_hash
from graphforge.models.workspace import FileFormat


def task_key(benchmark: str, task_id: str) -> str:
    """Natural key of a benchmark task: task ids are only unique inside their benchmark."""
    return f"{benchmark}:{task_id}"


class BenchmarkRow(Row):
    name: str
    source_dir: str
    task_count: int = Field(ge=0)
    file_count: int = Field(ge=0)


class FinalWrite(StrEnum):
    """How ``eval run --final-write`` forces the call of the turn a player gets when it stops without a
    deliverable its task names: not at all, by OpenAI's ``tool_choice``, or by llama.cpp's grammar in the
    form of GraphForge's text tool-call template."""

    OFF = "off"
    TOOL_CHOICE = "tool_choice"
    GRAMMAR = "grammar"


class BenchmarkTaskRow(Row):
    task_key: str
    benchmark: str
    task_id: str
    prompt: str
    prompt_hash: str
    occupation: str | None = None
    soc_code: str | None = None
    sector: str | None = None
    deliverable_text: str | None = None  # the expert's answer text (GDPVal), shown only to the judge
    # The file names the task asks the agent to write (as its prompt states them), when the record says;
    # ``eval run --final-write`` tells a player that ends without one of them to write it.
    deliverables: list[str] = Field(default_factory=list)

    @classmethod
    def of(cls, benchmark: str, task_id: str, prompt: str, occupation: str | None = None,
           soc_code: str | None = None, sector: str | None = None,
           deliverable_text: str | None = None, deliverables: list[str] | None = None) -> BenchmarkTaskRow:
        return cls(task_key=task_key(benchmark, task_id), benchmark=benchmark, task_id=task_id, prompt=prompt,
                   prompt_hash=stable_hash(prompt), occupation=occupation, soc_code=soc_code, sector=sector,
                   deliverable_text=deliverable_text, deliverables=deliverables or [])


class BenchmarkFileRow(Row):
    """A reference file's content keyed by sha256; ``text`` is its parsed text (spans joined)."""

    sha256: str
    size: int = Field(ge=0)
    format: FileFormat
    valid: bool
    invalid_reason: str | None = None
    parser: str | None = None
    text: str
    chars: int = Field(ge=0)


class BenchmarkFileLinkRow(Row):
    """(:Benchmark)-[:HAS_FILE {path}]->(:BenchmarkFile): a file's name inside one benchmark."""

    benchmark: str
    sha256: str
    path: str


class BenchmarkReferenceRow(Row):
    """(:BenchmarkTask)-[:REFERENCES {path}]->(:BenchmarkFile)."""

    task_key: str
    sha256: str
    path: str


class BenchmarkSource(Frozen):
    """Everything a benchmark folder holds, ready to write."""

    benchmark: BenchmarkRow
    tasks: list[BenchmarkTaskRow]
    files: list[BenchmarkFileRow]
    file_links: list[BenchmarkFileLinkRow]
    references: list[BenchmarkReferenceRow]
    missing_references: list[str] = []  # "task_id: path" for references naming no file on disk
    # The expert's deliverables (GDPVal ``deliverable_files``): the eval oracle's answers, never shown to
    # an agent. Same rows as references, written as (:BenchmarkTask)-[:HAS_GOLD {path}]->(:BenchmarkFile).
    gold: list[BenchmarkReferenceRow] = []
    missing_gold: list[str] = []
    # "path: reason" for what the reader could not take (bad records, links, pipes, oversized files...)
    refused: list[str] = []
