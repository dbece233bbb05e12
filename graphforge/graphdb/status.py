"""What the graph holds per pipeline stage, and what to run next.

`read_status` counts each stage's output with the queries under cypher/status/; `next_steps` turns the
counts into commands, in pipeline order; `idle_note` tells a stage that found nothing to work on what is
missing and what to run first (`graphforge status` and every stage command use these).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pydantic import BaseModel, Field

from graphforge.graphdb import cypher
from graphforge.graphdb.graph import Graph

STATUS_TAXONOMY = cypher.load("status/count_taxonomy")
STATUS_WORKSPACES = cypher.load("status/count_workspaces")
STATUS_SPECS = cypher.load("status/count_specs")
STATUS_TRAJECTORY_STATUSES = cypher.load("status/count_trajectory_statuses")
STATUS_JUDGMENTS = cypher.load("status/count_judgments")
STATUS_EXPORTS = cypher.load("status/count_exports")

UNSET_STATUS = "none"


class TaxonomyCounts(BaseModel):
    releases: int = 0
    occupations: int = 0
    tasks: int = 0
    digital_tasks: int = 0
    labelled_tasks: int = 0  # tasks with a DIGITAL label either way
    execution_patterns: int = 0


class SeedCounts(BaseModel):
    seeds: int = 0
    selected: int = 0


class WorkspaceCounts(BaseModel):
    workspaces: int = 0
    files: int = 0
    invalid_files: int = 0
    spans: int = 0
    facts: int = 0
    fact_links: int = 0  # DEPENDS_ON edges between facts
    without_facts: int = 0  # workspaces with spans and no fact yet (waiting for `evidence build`)
    without_specs: int = 0  # workspaces with facts and no spec yet (waiting for `specs compile`)


class SpecCounts(BaseModel):
    specs: int = 0  # every version
    current: int = 0
    current_criteria: int = 0
    current_without_trajectories: int = 0


class TrajectoryCounts(BaseModel):
    total: int = 0
    by_status: dict[str, int] = Field(default_factory=dict)

    def count(self, status: str) -> int:
        return self.by_status.get(status, 0)


class JudgmentCounts(BaseModel):
    total: int = 0
    by_arm: dict[str, int] = Field(default_factory=dict)  # judgments per arm
    trajectories_by_arm: dict[str, int] = Field(default_factory=dict)  # distinct trajectories per arm


class ExportKindCounts(BaseModel):
    exports: int = 0
    rows: int = 0


class ExportCounts(BaseModel):
    benchmarks: int = 0
    audits: int = 0
    by_kind: dict[str, ExportKindCounts] = Field(default_factory=dict)


class NextStep(BaseModel):
    command: str
    why: str


class GraphStatus(BaseModel):
    taxonomy: TaxonomyCounts
    seeds: SeedCounts
    workspaces: WorkspaceCounts
    specs: SpecCounts
    trajectories: TrajectoryCounts
    judgments: JudgmentCounts
    exports: ExportCounts
    next: list[NextStep] = Field(default_factory=list)


def read_status(graph: Graph) -> GraphStatus:
    """Count what each stage left in the graph and work out the next commands."""
    tax = graph.read_dicts(STATUS_TAXONOMY, digital=True)[0]
    ws = graph.read_dicts(STATUS_WORKSPACES, valid=True)[0]
    sp = graph.read_dicts(STATUS_SPECS)[0]
    statuses = {r["status"]: r["trajectories"]
                for r in graph.read_dicts(STATUS_TRAJECTORY_STATUSES, unset=UNSET_STATUS)}
    arms = graph.read_dicts(STATUS_JUDGMENTS)
    ex = graph.read_dicts(STATUS_EXPORTS)[0]
    status = GraphStatus(
        taxonomy=TaxonomyCounts(releases=tax["releases"], occupations=tax["occupations"], tasks=tax["tasks"],
                                digital_tasks=tax["digital_tasks"], labelled_tasks=tax["labelled_tasks"],
                                execution_patterns=tax["execution_patterns"]),
        seeds=SeedCounts(seeds=tax["seeds"], selected=tax["selected_seeds"]),
        workspaces=WorkspaceCounts(workspaces=ws["workspaces"], files=ws["files"],
                                   invalid_files=ws["invalid_files"], spans=ws["spans"], facts=ws["facts"],
                                   fact_links=ws["fact_links"], without_facts=ws["workspaces_without_facts"],
                                   without_specs=ws["workspaces_without_specs"]),
        specs=SpecCounts(specs=sp["specs"], current=sp["current_specs"],
                         current_criteria=sp["current_criteria"] or 0,
                         current_without_trajectories=sp["current_specs_without_trajectories"]),
        trajectories=TrajectoryCounts(total=sum(statuses.values()), by_status=statuses),
        judgments=JudgmentCounts(total=sum(r["judgments"] for r in arms),
                                 by_arm={str(r["arm"]): r["judgments"] for r in arms},
                                 trajectories_by_arm={str(r["arm"]): r["trajectories"] for r in arms}),
        exports=ExportCounts(benchmarks=ex["benchmarks"], audits=ex["audits"],
                             by_kind={e["kind"]: ExportKindCounts(exports=e["exports"], rows=e["rows"])
                                      for e in ex["exports"]}),
    )
    status.next = next_steps(status)
    return status


# -- the pipeline as prerequisites ----------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    key: str
    have: Callable[[GraphStatus], bool]
    missing: str  # what the graph lacks when `have` is false, as words after "the graph holds"
    command: str  # what makes it
    aside: str = ""  # said after the command (other ways to make it)
    own_command: bool = True  # False: a check on an earlier step's output, not a command of its own

    @property
    def run(self) -> str:
        """The command in backticks, with its aside."""
        return f"`{self.command}`" + (f" ({self.aside})" if self.aside else "")


# Two chains: the taxonomy and seeds (README order), and a workspace's way to training data. A workspace
# needs no seed to be loaded, so the second chain does not wait for the first.
TAXONOMY_CHAIN = (
    Step("tasks", lambda s: s.taxonomy.tasks > 0, "no O*NET task", "graphforge load onet DIR",
         "`graphforge load taxonomy-sample DIR` writes a sample"),
    Step("digital", lambda s: s.taxonomy.digital_tasks > 0, "no task labelled DIGITAL",
         "graphforge load digital FILE", "or --all-candidates"),
    Step("seeds", lambda s: s.seeds.seeds > 0, "no seed", "graphforge seeds build"),
    Step("selected", lambda s: s.seeds.selected > 0, "no selected seed", "graphforge seeds select --n N"),
)
WORKSPACE_CHAIN = (
    Step("workspaces", lambda s: s.workspaces.workspaces > 0, "no workspace",
         "graphforge load workspace DIR --seed SEED", "a folder of office files"),
    Step("spans", lambda s: s.workspaces.spans > 0, "no parsed span (every workspace file is invalid)",
         "graphforge list workspaces", "it counts the invalid files; `--json` gives their reasons",
         own_command=False),
    Step("facts", lambda s: s.workspaces.facts > 0, "no fact", "graphforge evidence build"),
    Step("specs", lambda s: s.specs.current > 0, "no compiled spec", "graphforge specs compile"),
    Step("trajectories", lambda s: s.trajectories.total > 0, "no trajectory", "graphforge rollout oracle",
         "or `rollout run` with a chat model, or `load trajectories PATH`"),
    Step("judgments", lambda s: s.judgments.total > 0, "no judged trajectory", "graphforge judge"),
    Step("admitted", lambda s: s.trajectories.count("admitted") > 0, "no admitted trajectory",
         "graphforge admit"),
)


def _chain_to(need: str) -> tuple[Step, ...]:
    for chain in (TAXONOMY_CHAIN, WORKSPACE_CHAIN):
        keys = [s.key for s in chain]
        if need in keys:
            return chain[: keys.index(need) + 1]
    raise KeyError(need)


def first_missing(status: GraphStatus, need: str) -> tuple[Step, list[Step]] | None:
    """The first step of ``need``'s chain the graph lacks and the steps after it up to ``need``, or None."""
    chain = _chain_to(need)
    for i, step in enumerate(chain):
        if not step.have(status):
            return step, list(chain[i + 1:])
    return None


# What each stage command consumes: the step whose output it works on.
STAGE_NEEDS = {
    "seeds build": "digital",
    "seeds select": "seeds",
    "report coverage": "seeds",
    "evidence build": "spans",
    "specs compile": "facts",
    "rollout oracle": "specs",
    "rollout run": "specs",
    "revise": "specs",
    "judge": "trajectories",
    "admit": "judgments",
    "export sft": "admitted",
    "export rft": "judgments",
    "export rubrics": "specs",
}


def missing_input(status: GraphStatus, command: str) -> str | None:
    """What ``command``'s input lacks and what to run first ("the graph holds no fact; run ..."), or None."""
    found = first_missing(status, STAGE_NEEDS[command])
    if found is None:
        return None
    missing, then = found
    rest = [f"`{s.command.removeprefix('graphforge ')}`" for s in then if s.own_command]
    verb = "see" if not missing.own_command else "run"
    then_ = f", then {', '.join(rest)}" if rest else ""
    return f"the graph holds {missing.missing}; {verb} {missing.run} first{then_}"


def idle_note(status: GraphStatus, command: str) -> str | None:
    """Why ``command`` had nothing to work on and what to run first, or None when its input is there."""
    why = missing_input(status, command)
    return None if why is None else f"{command}: nothing to do: {why}"


def next_steps(status: GraphStatus) -> list[NextStep]:
    """The commands that would move the pipeline on, in pipeline order (the first is the next one)."""
    steps: list[NextStep] = []

    def add(command: str, why: str) -> None:
        if all(s.command != command for s in steps):
            steps.append(NextStep(command=command, why=why))

    if status.workspaces.workspaces == 0:
        found = first_missing(status, "selected")
        if found is not None:
            aside = f" ({found[0].aside})" if found[0].aside else ""
            add(found[0].command, f"the graph holds {found[0].missing}{aside}")
        add("graphforge load workspace DIR --seed SEED", "the graph holds no workspace (a folder of office "
            "files; `graphforge list seeds --selected` shows the seeds to pick from)")
        return steps
    ws, sp, tr = status.workspaces, status.specs, status.trajectories
    found = first_missing(status, "admitted")
    if found is not None and found[0].key == "spans":
        add("graphforge list workspaces", "no workspace file could be parsed (every file is invalid)")
    if ws.without_facts or (found is not None and found[0].key == "facts"):
        add("graphforge evidence build", f"{ws.without_facts or ws.workspaces} workspace(s) without facts")
    if ws.without_specs or (found is not None and found[0].key == "specs"):
        add("graphforge specs compile", f"{ws.without_specs or ws.workspaces} workspace(s) with facts and "
            "no spec")
    if sp.current_without_trajectories:
        add("graphforge rollout oracle", f"{sp.current_without_trajectories} current spec(s) without a "
            "trajectory (or `graphforge rollout run` with a chat model)")
    if tr.count("materialised"):
        add("graphforge judge", f"{tr.count('materialised')} trajectory(ies) waiting for a judgment")
    if tr.count("judged"):
        add("graphforge admit", f"{tr.count('judged')} judged trajectory(ies) waiting for admission")
    admitted = tr.count("admitted")
    if admitted and "sft" not in status.exports.by_kind:
        if status.exports.audits == 0:
            add("graphforge load benchmark DIR --name NAME, then graphforge audit contamination "
                "--benchmark NAME", f"{admitted} admitted trajectory(ies); an export needs a clean "
                "contamination audit first (or --skip-audit)")
        add("graphforge export sft OUT --benchmark NAME", f"{admitted} admitted trajectory(ies), no SFT "
            "export yet")
    if not steps:
        add("graphforge report corpus --out out/report", "every stage is up to date; the corpus report "
            "sums it up (`graphforge list specs` and `list trajectories` show the details)")
    return steps
