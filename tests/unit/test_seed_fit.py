"""Seed fit: text analysis, TF-IDF (checked against scikit-learn), ranking on generated folders, warnings."""

from __future__ import annotations

import random

import pytest

from graphforge.seeds import fit as seed_fit
from graphforge.seeds.fit import SeedFit, SeedProfile, SeedSuggestion, analyze, rank_seeds, stem

# Seeds written in O*NET's manner (occupation, description, task, DWA), two per line of work.
SEEDS = [
    SeedProfile(seed_id="med-1", selection_rank=1, soc_code="29-2072.00",
                occupation="Medical Records Specialists",
                description="Compile, process and maintain medical records of hospital and clinic patients, "
                            "coding diagnoses and procedures for billing and reimbursement.",
                task="Assign standard billing codes to diagnoses and procedures in patient records.",
                dwa="Code medical records or billing information."),
    SeedProfile(seed_id="bill-1", selection_rank=2, soc_code="43-3021.00",
                occupation="Billing and Posting Clerks",
                description="Compile, compute and record billing, accounting and other financial data for "
                            "hospital services and insurance claims.",
                task="Review charges for services and prepare itemised statements and payer claims.",
                dwa="Prepare billing statements or invoices."),
    SeedProfile(seed_id="sec-1", selection_rank=3, soc_code="15-1212.00",
                occupation="Information Security Analysts",
                description="Plan and carry out security measures that protect computer networks, cloud "
                            "systems and information from attacks and unauthorised access.",
                task="Assess cloud system security controls and document vulnerabilities and remedies.",
                dwa="Evaluate computer system security controls."),
    SeedProfile(seed_id="sec-2", selection_rank=4, soc_code="15-1244.00",
                occupation="Network and Computer Systems Administrators",
                description="Install, configure and support an organisation's networks, servers and cloud "
                            "services, and keep their access and encryption settings current.",
                task="Monitor server logs and network access for security incidents.",
                dwa="Monitor network or system security."),
    SeedProfile(seed_id="con-1", selection_rank=5, soc_code="47-2061.00", occupation="Construction Laborers",
                description="Do physical work at construction sites: loading, digging and cleaning.",
                task="Record the materials used on site each day.", dwa="Record construction materials."),
    SeedProfile(seed_id="mkt-1", selection_rank=None, soc_code="11-2021.00", occupation="Marketing Managers",
                description="Plan and direct marketing programmes and campaigns for products.",
                task="Develop pricing strategies from market research.", dwa="Develop marketing strategies."),
]

# Office words both kinds of folder use alike: they must not decide the ranking.
FILLER = ("report", "version", "table", "review", "date", "contact", "summary", "update", "page", "notes",
          "approved", "owner", "status", "section", "appendix", "revision", "overview", "template")
HOSPITAL = ("hospital", "standard charges", "gross charge", "discounted cash price", "payer", "health plan",
            "negotiated rate", "billing code", "CPT", "HCPCS", "DRG", "patient", "inpatient", "outpatient",
            "procedure", "diagnosis", "chargemaster", "medical", "claims", "shoppable services")
CLOUD = ("cloud service provider", "security controls", "access control", "incident response", "encryption",
         "vulnerability scan", "authorization boundary", "FedRAMP", "system security plan", "network",
         "multi-factor authentication", "audit logging", "continuous monitoring", "penetration test",
         "identity management", "firewall", "server hardening", "POA&M", "risk assessment", "configuration")


def generated_folder(domain: tuple[str, ...], files: tuple[str, ...], rng: random.Random) -> list[str]:
    """What seed_fit.folder_texts would read: paths, then the openings of each file (headings, rows)."""
    texts = list(files)
    for name in files:
        title = " ".join(rng.sample(domain, 3)).title()
        rows = [", ".join(rng.sample(domain, 2) + rng.sample(FILLER, 3)) for _ in range(8)]
        prose = " ".join(rng.choice(FILLER + domain) for _ in range(60))
        texts += [f"# {title}", f"{name} {rng.choice(FILLER)}", *rows, prose]
    return texts


def hospital_folder(seed: int = 1) -> list[str]:
    files = ("data-dictionary/hospital_standard_charges_v2.csv", "templates/standard-charges-wide.csv",
             "examples/chargemaster_2025_example.json", "guidance/price_transparency_faq.md",
             "notes/payer_negotiated_rates_review.md")
    return generated_folder(HOSPITAL, files, random.Random(seed))


def cloud_folder(seed: int = 1) -> list[str]:
    files = ("ssp/system_security_plan_moderate.docx", "templates/poam_tracker.xlsx",
             "assessments/vulnerability_scan_summary_2024.csv", "policies/access_control_policy.md",
             "notes/incident_response_tabletop.md")
    return generated_folder(CLOUD, files, random.Random(seed))


def test_stem_folds_inflections_onto_one_stem() -> None:
    pairs = [("records", "record"), ("recording", "record"), ("policies", "policy"), ("billing", "bills"),
             ("coding", "codes"), ("pricing", "prices"), ("financial", "finance"), ("security", "secure"),
             ("operations", "operational"), ("planned", "plans")]
    for a, b in pairs:
        assert stem(a) == stem(b), (a, b, stem(a), stem(b))
    assert stem("class") == "class" and stem("status") == "status" and stem("analysis") == "analysis"


def test_analyze_splits_names_and_drops_stop_and_format_words() -> None:
    words = analyze("data-dictionary/HospitalStandardCharges_v2.CSV and the 2024 Report of an FAQ.pdf")
    assert words == ["data", "dictionary", "hospital", "standard", "charg", "report", "faq"]


def test_tfidf_matches_scikit_learn() -> None:
    sklearn = pytest.importorskip("sklearn.feature_extraction.text")  # a dev dependency, not a runtime one
    docs = [s.document() for s in SEEDS]
    folder = "\n".join(hospital_folder())
    vectorizer = sklearn.TfidfVectorizer(analyzer=analyze, sublinear_tf=True, smooth_idf=True, norm="l2")
    matrix = vectorizer.fit_transform(docs)
    expected = (matrix @ vectorizer.transform([folder]).T).toarray().ravel()
    ours = {f.seed_id: f.score for f in rank_seeds(SEEDS, [folder])}
    for seed, value in zip(SEEDS, expected, strict=True):
        assert ours[seed.seed_id] == pytest.approx(float(value), abs=1e-4)


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_a_hospital_price_transparency_folder_ranks_medical_and_billing_above_cloud(seed: int) -> None:
    ranked = rank_seeds(SEEDS, hospital_folder(seed))
    by_id = {f.seed_id: f for f in ranked}
    assert {ranked[0].seed_id, ranked[1].seed_id} == {"med-1", "bill-1"}
    assert min(by_id["med-1"].score, by_id["bill-1"].score) > max(by_id["sec-1"].score, by_id["sec-2"].score)
    assert ranked[0].score >= seed_fit.POOR_FIT
    # The shared words shown are the folder's own words (not stems), the heaviest first.
    text = "\n".join(hospital_folder(seed)).lower()
    assert len(by_id["med-1"].shared) == 5 and all(w in text for w in by_id["med-1"].shared)
    assert "patient" in by_id["med-1"].shared and "security" not in by_id["med-1"].shared


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_a_cloud_security_folder_ranks_security_above_medical_records(seed: int) -> None:
    ranked = rank_seeds(SEEDS, cloud_folder(seed))
    by_id = {f.seed_id: f for f in ranked}
    assert {ranked[0].seed_id, ranked[1].seed_id} == {"sec-1", "sec-2"}
    assert by_id["med-1"].score < seed_fit.POOR_FIT  # the case: it would be warned about
    assert by_id["sec-1"].score >= seed_fit.CLEARLY_BETTER_RATIO * by_id["med-1"].score


def test_a_score_does_not_depend_on_the_pool_ranked_beside_it() -> None:
    folder = hospital_folder()
    everything = {f.seed_id: f.score for f in rank_seeds(SEEDS, folder)}
    two = rank_seeds(SEEDS, folder, pool=["sec-1", "med-1"])
    assert [f.seed_id for f in two] == ["med-1", "sec-1"]
    assert all(f.score == everything[f.seed_id] for f in two)


def test_ties_go_to_the_better_selection_rank_then_the_id() -> None:
    twin = SEEDS[0].model_copy(update={"seed_id": "med-0", "selection_rank": None})
    later = SEEDS[0].model_copy(update={"seed_id": "med-9", "selection_rank": 9})
    ranked = rank_seeds([twin, later, *SEEDS], hospital_folder())
    assert [f.seed_id for f in ranked[:3]] == ["med-1", "med-9", "med-0"]


def test_an_empty_folder_or_no_seeds_scores_nothing() -> None:
    assert all(f.score == 0 and f.shared == [] for f in rank_seeds(SEEDS, []))
    assert rank_seeds([], hospital_folder()) == []


def test_manifest_paths_match_the_loader() -> None:
    from loaders.workspace import MANIFEST_NAMES

    assert seed_fit.MANIFEST_PATHS == MANIFEST_NAMES


def _fit(seed_id: str, score: float, occupation: str = "Some Occupation") -> SeedFit:
    return SeedFit(seed_id=seed_id, selection_rank=None, soc_code=None, occupation=occupation, task="a task",
                   dwa="", score=score, shared=[])


def _suggestion(current: str | None, current_score: float | None, fits: list[SeedFit],
                pool: seed_fit.Pool = "selected") -> SeedSuggestion:
    return SeedSuggestion(workspace_id="ws", pool=pool, seeds_ranked=len(fits),
                          current_seed=current, current_source="user" if current else None,
                          current_score=current_score, suggestions=fits)


def test_fit_warning_names_the_better_seed_and_the_command_to_switch() -> None:
    fits = [_fit("best", 0.30, "Medical Records Specialists"), _fit("mine", 0.04)]
    line = seed_fit.fit_warning(_suggestion("mine", 0.04, fits))
    assert line is not None and "\n" not in line
    assert "mine" in line and "0.04 < 0.1" in line and "Medical Records Specialists" in line
    assert "`graphforge seeds assign --workspace ws --seed best`" in line
    # above the threshold, but another seed is clearly better (1.5 times and 0.05 more)
    clearly = seed_fit.fit_warning(_suggestion("mine", 0.15, [_fit("best", 0.30), _fit("mine", 0.15)]))
    assert clearly is not None and "well under the best" in clearly and "--seed best" in clearly


def test_no_warning_when_the_seed_fits_or_nothing_is_clearly_better() -> None:
    assert seed_fit.fit_warning(_suggestion("mine", 0.30, [_fit("mine", 0.30), _fit("x", 0.2)])) is None
    assert seed_fit.fit_warning(_suggestion("mine", 0.20, [_fit("x", 0.28), _fit("mine", 0.20)])) is None
    assert seed_fit.fit_warning(_suggestion("mine", 0.12, [_fit("x", 0.16), _fit("mine", 0.12)])) is None
    assert seed_fit.fit_warning(_suggestion(None, None, [])) is None  # no seeds in the graph
    assert seed_fit.fit_warning(_suggestion(None, None, [_fit("x", 0.0)])) is None  # nothing shares a word


def test_a_poor_seed_that_is_still_the_best_points_to_every_seed() -> None:
    line = seed_fit.fit_warning(_suggestion("mine", 0.05, [_fit("mine", 0.05), _fit("x", 0.01)]))
    assert line is not None and "no selected seed fits better" in line and "--all" in line
    everything = seed_fit.fit_warning(_suggestion("mine", 0.05, [_fit("mine", 0.05)], pool="all"))
    assert everything is not None and "--all" not in everything


def test_a_workspace_without_a_seed_is_told_the_best_one() -> None:
    line = seed_fit.fit_warning(_suggestion(None, None, [_fit("best", 0.2, "Budget Analysts")]))
    assert line is not None and "has no seed" in line and "--seed best" in line


def test_the_suggestion_table_fits_in_100_columns() -> None:
    from graphforge.cli.seeds import suggestion_lines

    long = "Sales Representatives, Wholesale and Manufacturing, Except Technical and Scientific Products"
    fits = [SeedFit(seed_id="ac803eb01e983cb1", selection_rank=4, soc_code="41-4012.00", occupation=long,
                    task="Answer customer enquiries about products, prices and delivery dates by e-mail " * 3,
                    dwa="", score=0.1234, shared=["price"]), _fit("b0a57aaf1555f863", 0.05)]
    lines = suggestion_lines(_suggestion("b0a57aaf1555f863", 0.05, fits))
    assert all(len(line) <= 100 for line in lines[2:]), [len(line) for line in lines]
    assert lines[3].startswith("ac803eb01e983cb1   0.123  Sales Representatives")
    assert lines[4].startswith("b0a57aaf1555f863*")  # the workspace's own seed is marked
