"""How well each seed fits a workspace folder: TF-IDF cosine between the seed's words and the folder's.

A seed's document is its occupation (title and description), its task statement and its DWA (detailed
work activity) title. A folder's document is its file paths, the openings of each file's first spans
(title blocks, headings, header rows) and the section and statement of the facts already extracted;
ambient files (unrelated by their hidden role) are left out. Both are cut into lower-case words (camelCase
and snake_case split), English stop words and file-format words dropped, and each word lightly stemmed
(``records``/``recording`` -> ``record``, ``policies`` -> ``policy``, ``pricing``/``prices`` -> ``pric``).

The weights are TF-IDF as scikit-learn computes them with ``sublinear_tf=True, smooth_idf=True,
norm="l2"`` (the unit tests check the two agree): ``tf = 1 + ln(count)``, ``idf = ln((1 + n) / (1 + df))
+ 1`` over the n distinct seed documents of the whole graph (so a seed's score does not depend on which
seeds are ranked beside it), and the folder is weighted on the seeds' vocabulary only, as a fitted
vectorizer transforms a new document: words no seed uses do not dilute the score. The score is the cosine
of the two vectors, 0 (no word in common) to 1.

The module is pure except for the few functions at the end that read the graph (``suggest``,
``assign``, ``fit_warning``); ``rank_seeds`` and the text helpers are unit-tested without Neo4j.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from graphforge.graphdb import cypher
from graphforge.graphdb.graph import Graph

GET_SEED_PROFILES = cypher.load("seeds/get_seed_profiles")
GET_FOLDER_OPENINGS = cypher.load("seeds/get_folder_openings")
GET_FOLDER_FACT_TEXT = cypher.load("seeds/get_folder_fact_text")
GET_SEED_OF_WORKSPACE = cypher.load("workspace/get_seed_of_workspace")
SET_WORKSPACE_SEED = cypher.load("workspace/set_workspace_seed")

# A workspace's seed fits poorly below this score. Measured with the bundled O*NET sample on the corpus
# folders (../shared/corpus) and the generated sample folder: the seed of the folder's own line of work scores
# 0.2-0.3 (a hospital price-transparency folder and Medical Records Specialists 0.23-0.27); a seed from
# another line of work 0.0-0.15, the more the larger the folder, since generic words ("informat", "report",
# "day") are shared with most seeds (the median seed of a large folder scores 0.1-0.15).
POOR_FIT = 0.10
# Another seed fits clearly better when its score is at least this many times the workspace seed's and
# at least CLEARLY_BETTER_BY above it (both must hold: tiny scores do not flip on a word or two).
CLEARLY_BETTER_RATIO = 1.5
CLEARLY_BETTER_BY = 0.05
# How much of a folder is read: the first spans of each file (title block, headings, header rows), each
# cut to its opening, and at most this many facts.
SPANS_PER_FILE = 40
CHARS_PER_SPAN = 400
MAX_FACTS = 5000
# A manifest at the folder's root describes the files (paths, roles, licences), not the subject: the names
# loaders.workspace.MANIFEST_NAMES reads (a unit test keeps the two lists equal).
MANIFEST_PATHS = ("manifest.json", "manifest.yaml", "manifest.yml", "graphforge-manifest.json",
                  "graphforge-manifest.yaml", "graphforge-manifest.yml")

# English function words (the usual stop list), words that name a file's format, not its subject, and
# generic verbs and fillers common to office prose and O*NET statements alike.
STOP_WORDS = frozenset("""
a about above after again against all almost along already also although always am among an and another
any anyone anything are around as at be became because become been before being below between both but
by can cannot could did do does doing done down during each either else enough etc even ever every few
for from further had has have having he her here hers herself him himself his how however i if in into
is it its itself just least less many may me might more most much must my myself neither no nor not now
of off often on once one only onto or other others otherwise our ours ourselves out over own per perhaps
please rather same several she should since so some such than that the their theirs them themselves then
there thereby therefore these they this those though through thus to together too toward towards under
until up upon us use used using very via was we well were what whatever when whenever where whereas
whether which while who whom whose why will with within without would yet you your yours yourself
yourselves
pdf xlsx xlsm xls docx doc pptx ppt csv tsv txt htm html json xml yaml yml md markdown png jpg jpeg gif
zip copy final draft new old www http https com org gov
available based current currently ensure ensuring following general include included includes including
make makes made making need needed needs place placed provide provided provides providing related
specific various way ways
""".split())

_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_WORD = re.compile(r"[^\W\d_]+")
_VOWEL = re.compile(r"[aeiouy]")
# Derivational endings folded onto a shared stem (after the plural and -ing/-ed are gone).
_DERIVED = (("ational", "ate"), ("ization", "ize"), ("isation", "ize"), ("ation", "ate"), ("ement", ""),
            ("ment", ""), ("ial", ""), ("ness", ""), ("ity", ""), ("ical", "ic"), ("ally", "al"), ("ly", ""))


def stem(word: str) -> str:
    """A light suffix stripper (plural, -ing/-ed, common derivations, final e); stems keep >= 3 letters."""
    w = word
    if len(w) > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif w.endswith("sses"):
        w = w[:-2]
    elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    for suffix in ("ing", "ed"):
        base = w[: -len(suffix)]
        if w.endswith(suffix) and len(base) >= 3 and _VOWEL.search(base):
            w = base[:-1] if len(base) > 3 and base[-1] == base[-2] and base[-1] not in "lsz" else base
            break
    for suffix, repl in _DERIVED:
        if w.endswith(suffix) and len(w) - len(suffix) + len(repl) >= 4:
            w = w[: -len(suffix)] + repl
            break
    if len(w) > 3 and w.endswith("e") and not w.endswith("ee"):
        w = w[:-1]
    return w


def analyze(text: str) -> list[str]:
    """The stemmed content words of ``text`` in order (camelCase split; stop words, short words dropped)."""
    out: list[str] = []
    for raw in _WORD.findall(_CAMEL.sub(" ", text)):
        word = raw.lower()
        if len(word) >= 3 and word not in STOP_WORDS:
            out.append(stem(word))
    return out


def surface_forms(text: str) -> dict[str, str]:
    """Each stem of ``text`` mapped to the word it most often stands for there (to show shared words)."""
    counts: Counter[tuple[str, str]] = Counter()
    for raw in _WORD.findall(_CAMEL.sub(" ", text)):
        word = raw.lower()
        if len(word) >= 3 and word not in STOP_WORDS:
            counts[(stem(word), word)] += 1
    best: dict[str, tuple[int, str]] = {}
    for (s, word), n in counts.items():
        if s not in best or (n, word) > best[s]:
            best[s] = (n, word)
    return {s: word for s, (_, word) in best.items()}


Vector = dict[str, float]


class TfidfIndex:
    """IDF fitted on a collection of documents (each a list of terms); vectors over its vocabulary."""

    def __init__(self, documents: Iterable[Sequence[str]]) -> None:
        df: Counter[str] = Counter()
        n = 0
        for doc in documents:
            n += 1
            df.update(set(doc))
        self.documents = n
        self.idf: dict[str, float] = {t: math.log((1 + n) / (1 + d)) + 1.0 for t, d in df.items()}

    def vector(self, terms: Iterable[str]) -> Vector:
        """Sublinear tf x idf over the fitted vocabulary (other terms dropped), L2-normalised."""
        counts = Counter(t for t in terms if t in self.idf)
        weights = {t: (1.0 + math.log(c)) * self.idf[t] for t, c in counts.items()}
        norm = math.sqrt(sum(w * w for w in weights.values()))
        return {t: w / norm for t, w in weights.items()} if norm else {}


def cosine(a: Mapping[str, float], b: Mapping[str, float]) -> float:
    """Dot product of two L2-normalised sparse vectors."""
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    return sum(w * large.get(t, 0.0) for t, w in small.items())


class SeedProfile(BaseModel):
    """A seed and the words its fit is measured on (Neo4j -> code)."""

    model_config = ConfigDict(frozen=True)

    seed_id: str
    selection_rank: int | None = None
    soc_code: str | None = None
    occupation: str = ""
    description: str = ""
    task: str = ""
    dwa: str = ""

    def document(self) -> str:
        return "\n".join((self.occupation, self.description, self.task, self.dwa))


class SeedFit(BaseModel):
    """One seed's fit to a folder, with the folder words it shares (the heaviest first)."""

    seed_id: str
    selection_rank: int | None
    soc_code: str | None
    occupation: str
    task: str
    dwa: str
    score: float
    shared: list[str]


def rank_seeds(seeds: Sequence[SeedProfile], folder: Sequence[str], pool: Iterable[str] | None = None,
               shared_words: int = 5) -> list[SeedFit]:
    """The seeds of ``pool`` (default: all of ``seeds``) ranked by fit to the folder's texts, best first.

    IDF comes from the distinct documents of all ``seeds``; ties go to the better selection rank, then the
    smaller seed id.
    """
    docs = {s.seed_id: analyze(s.document()) for s in seeds}
    index = TfidfIndex({" ".join(d): d for d in docs.values()}.values())
    text = "\n".join(folder)
    folder_vec = index.vector(analyze(text))
    forms = surface_forms(text)
    wanted = None if pool is None else set(pool)
    fits = []
    for s in seeds:
        if wanted is not None and s.seed_id not in wanted:
            continue
        vec = index.vector(docs[s.seed_id])
        contributions = sorted(((w * folder_vec[t], t) for t, w in vec.items() if t in folder_vec),
                               reverse=True)
        fits.append(SeedFit(
            seed_id=s.seed_id, selection_rank=s.selection_rank, soc_code=s.soc_code, occupation=s.occupation,
            task=s.task, dwa=s.dwa, score=round(sum(c for c, _ in contributions), 4),
            shared=[forms.get(t, t) for _, t in contributions[:shared_words]]))
    fits.sort(key=lambda f: (-f.score, f.selection_rank if f.selection_rank is not None else 2**31,
                             f.seed_id))
    return fits


def fits_poorly(current: SeedFit | None, best: SeedFit | None) -> bool:
    """The workspace's seed (``current``) scores below POOR_FIT, or ``best`` is clearly better."""
    if current is None or best is None:
        return False
    if current.score < POOR_FIT:
        return True
    return (best.seed_id != current.seed_id and best.score >= CLEARLY_BETTER_RATIO * current.score
            and best.score - current.score >= CLEARLY_BETTER_BY)


# -- the graph ------------------------------------------------------------------------------------------

Pool = Literal["selected", "all"]


class SeedSuggestion(BaseModel):
    """The seeds of a pool ranked by their fit to one workspace, and where its own seed stands."""

    workspace_id: str
    pool: Pool  # "selected": the selected seeds (all seeds when none is selected); "all": every seed
    seeds_ranked: int
    current_seed: str | None  # the workspace's seed, when it has one
    current_source: str | None  # "user" (--seed, a manifest, seeds assign) or "fit" (assigned by its fit)
    current_score: float | None  # its fit (ranked with the pool even when it is not in it)
    suggestions: list[SeedFit]


def seed_profiles(graph: Graph) -> list[SeedProfile]:
    return graph.read(GET_SEED_PROFILES, SeedProfile)


def folder_texts(graph: Graph, workspace_id: str) -> list[str]:
    """The folder's words: paths, span openings, fact sections and statements (bounded, see the constants)."""
    texts: list[str] = []
    for row in graph.read_dicts(GET_FOLDER_OPENINGS, workspace_id=workspace_id,
                                skip_paths=list(MANIFEST_PATHS), spans_per_file=SPANS_PER_FILE,
                                chars_per_span=CHARS_PER_SPAN):
        texts.append(str(row["path"]).replace("/", " "))
        texts.extend(str(t) for t in row["openings"])
    sections: set[str] = set()
    for row in graph.read_dicts(GET_FOLDER_FACT_TEXT, workspace_id=workspace_id,
                                skip_paths=list(MANIFEST_PATHS), limit=MAX_FACTS):
        if row["section"] and row["section"] not in sections:
            sections.add(row["section"])
            texts.append(str(row["section"]))
        texts.append(str(row["statement"]))
    return texts


def workspace_seed(graph: Graph, workspace_id: str) -> dict[str, object]:
    """The workspace's recorded seed: seed_id, seed_exists, seed_source, seed_fit (all None when unknown)."""
    rows = graph.read_dicts(GET_SEED_OF_WORKSPACE, workspace_id=workspace_id)
    return rows[0] if rows else {"seed_id": None, "seed_exists": False, "seed_source": None, "seed_fit": None}


def suggest(graph: Graph, workspace_id: str, pool: Pool = "selected", top: int | None = None,
            profiles: Sequence[SeedProfile] | None = None) -> SeedSuggestion:
    """Rank the pool's seeds by fit to the workspace (``profiles``: every seed, when already read)."""
    seeds = list(profiles) if profiles is not None else seed_profiles(graph)
    selected = [s.seed_id for s in seeds if s.selection_rank is not None]
    ids = selected if pool == "selected" and selected else [s.seed_id for s in seeds]
    head = workspace_seed(graph, workspace_id)
    current = str(head["seed_id"]) if head["seed_id"] else None
    extra = [current] if current and current not in ids and any(s.seed_id == current for s in seeds) else []
    ranked = rank_seeds(seeds, folder_texts(graph, workspace_id), [*ids, *extra]) if seeds else []
    mine = next((f for f in ranked if f.seed_id == current), None)
    listed = [f for f in ranked if f.seed_id not in extra]
    return SeedSuggestion(
        workspace_id=workspace_id, pool="selected" if pool == "selected" and selected else "all",
        seeds_ranked=len(listed), current_seed=current,
        current_source=str(head["seed_source"]) if head["seed_source"] else ("user" if current else None),
        current_score=mine.score if mine else None, suggestions=listed[:top] if top else listed)


def assign(graph: Graph, workspace_id: str, seed_id: str | None, source: str | None,
           score: float | None = None) -> bool:
    """Make ``seed_id`` the workspace's only seed (recording how it was chosen); True when it is linked."""
    rows = graph.execute(SET_WORKSPACE_SEED, workspace_id=workspace_id, seed_id=seed_id, seed_source=source,
                         seed_fit=score)
    return bool(rows and rows[0]["linked"])


def fit_warning(suggestion: SeedSuggestion) -> str | None:
    """One line when the workspace's seed fits poorly (or it has none while a seed fits), else None."""
    best = suggestion.suggestions[0] if suggestion.suggestions else None
    if best is None or best.score <= 0:
        return None
    wid = suggestion.workspace_id
    better = (f"seed {best.seed_id} ({best.occupation}) fits better ({best.score:.2f}): "
              f"`graphforge seeds assign --workspace {wid} --seed {best.seed_id}`, then compile again")
    current, score = suggestion.current_seed, suggestion.current_score or 0.0
    if current is None:
        return f"workspace {wid} has no seed, so its statements name no occupation; {better}"
    mine = SeedFit(seed_id=current, selection_rank=None, soc_code=None, occupation="", task="", dwa="",
                   score=score, shared=[])
    if not fits_poorly(mine, best):
        return None
    if best.seed_id == current or best.score <= score:
        pool = "selected seed" if suggestion.pool == "selected" else "seed"
        widen = f"; `graphforge seeds suggest --workspace {wid} --all` ranks every seed" \
            if suggestion.pool == "selected" else ""
        return (f"workspace {wid}: its seed {current} fits the folder poorly ({score:.2f} < {POOR_FIT}) "
                f"and no {pool} fits better{widen}")
    why = f"{score:.2f} < {POOR_FIT}" if score < POOR_FIT else f"{score:.2f}, well under the best"
    return f"workspace {wid}: its seed {current} fits the folder poorly ({why}); {better}"


def fit_warnings(graph: Graph, workspace_ids: Iterable[str]) -> list[str]:
    """``fit_warning`` for each workspace (the seeds are read once; none when the graph has no seeds)."""
    profiles = seed_profiles(graph)
    if not profiles:
        return []
    lines = (fit_warning(suggest(graph, wid, "selected", profiles=profiles)) for wid in workspace_ids)
    return [line for line in lines if line]
