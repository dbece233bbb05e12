"""A small O*NET-style extract written by code, in the official text (and .xlsx) release formats.

The occupations carry real O*NET-SOC codes and titles so the sector logic is exercised on real
prefixes, but every description, task statement, task id and work-activity title here was written
for GraphForge's tests and demo; it is not copied from an O*NET release. Task ids start at 90001 so
they never collide with real ones.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from pathlib import Path

RELEASE_ID = "29.1"
SAMPLE_DIR_NAME = "onet_mini"
_DATE = "08/2024"
_SOURCE = "GraphForge sample"

# (GWA element id, GWA name, [(IWA suffix, IWA title, [(DWA key, DWA title), ...]), ...])
HIERARCHY: list[tuple[str, str, list[tuple[str, str, list[tuple[str, str]]]]]] = [
    ("4.A.1.a.1", "Getting information", [
        ("I01", "Research information from published sources", [
            ("research_market", "Research industry, market or economic conditions"),
            ("gather_ops", "Gather data about operational or business issues"),
            ("review_regs", "Research laws, regulations or precedents that apply to a matter"),
        ]),
        ("I02", "Collect information from records and people", [
            ("collect_fin", "Collect financial data from business records"),
            ("interview", "Meet clients or stakeholders to gather information"),
        ]),
    ]),
    ("4.A.2.a.4", "Analyzing data or information", [
        ("I01", "Analyze financial data", [
            ("analyze_fin", "Analyze financial records to assess organisational performance"),
            ("prep_fin_reports", "Prepare financial statements or financial reports"),
            ("reconcile", "Reconcile accounts or financial records"),
        ]),
        ("I02", "Analyze business or operational data", [
            ("analyze_sales", "Analyze sales or market data to identify trends"),
            ("analyze_ops", "Analyze operational data to measure performance"),
            ("compile_stats", "Compile statistical data for reports"),
        ]),
        ("I03", "Analyze technical, scientific or health data", [
            ("analyze_test", "Analyze test, survey or inspection data"),
            ("analyze_health", "Analyze patient or health outcome data"),
        ]),
    ]),
    ("4.A.2.b.1", "Making decisions and solving problems", [
        ("I01", "Estimate costs or resource needs", [
            ("estimate_costs", "Estimate costs of projects, products or services"),
            ("prep_budget", "Prepare budgets for programmes or departments"),
            ("forecast", "Forecast financial or business outcomes"),
        ]),
        ("I02", "Evaluate compliance with standards or agreements", [
            ("audit_compliance", "Audit records for compliance with rules or standards"),
            ("review_contracts", "Review contracts or legal documents for accuracy and risk"),
            ("eval_quality", "Evaluate the quality of products, processes or services"),
        ]),
    ]),
    ("4.A.2.b.4", "Developing objectives and strategies", [
        ("I01", "Develop plans or schedules", [
            ("schedule", "Develop schedules for projects, staff or meetings"),
            ("plan_marketing", "Plan marketing or sales activities"),
        ]),
        ("I02", "Develop organisational guidance", [
            ("dev_policy", "Develop organisational policies or procedures"),
            ("dev_training", "Develop training or instructional materials"),
        ]),
    ]),
    ("4.A.3.b.6", "Documenting and recording information", [
        ("I01", "Maintain records", [
            ("maintain_fin", "Maintain financial or accounting records"),
            ("maintain_inventory", "Maintain inventory or supply records"),
            ("data_entry", "Enter information into databases or information systems"),
            ("maintain_client", "Maintain client, patient or case records"),
        ]),
        ("I02", "Prepare documentation", [
            ("tech_docs", "Prepare technical documentation or specifications"),
            ("draft_legal", "Draft legal documents"),
            ("correspondence", "Prepare business correspondence"),
        ]),
    ]),
    ("4.A.4.a.1", "Interpreting the meaning of information for others", [
        ("I01", "Present information to others", [
            ("present_results", "Present research or analysis results"),
            ("prep_slides", "Prepare presentation materials"),
            ("explain_fin", "Explain financial information to clients or managers"),
        ]),
    ]),
    ("4.A.3.a.2", "Handling and moving objects", [
        ("I01", "Operate equipment or move materials", [
            ("operate_equipment", "Operate tools or heavy equipment"),
            ("move_materials", "Move materials, equipment or supplies"),
            ("administer", "Administer treatments or medications to patients"),
        ]),
    ]),
    ("4.A.1.b.2", "Inspecting equipment, structures, or materials", [
        ("I01", "Inspect structures or work sites", [
            ("inspect_sites", "Inspect work sites or structures for defects or hazards"),
        ]),
    ]),
]

# Content Model elements above the GWA level: real releases list them too, and the loader must skip them.
CONTENT_MODEL_EXTRA = [
    ("4.A", "Work Activities", "General types of job behaviours occurring on multiple jobs."),
    ("4.A.1", "Information Input", "Where and how information needed for the job is obtained."),
    ("4.A.2", "Mental Processes", "Processing, planning and problem solving with job information."),
    ("1.A", "Abilities", "Enduring attributes of the individual that influence performance."),
]

Task = tuple[str, list[str], bool]  # statement, DWA keys, digital label
# (O*NET-SOC code, title, description, tasks)
OCCUPATIONS: list[tuple[str, str, str, list[Task]]] = [
    ("11-2021.00", "Marketing Managers",
     "Plan and direct marketing programmes, pricing and campaigns for an organisation's products.", [
         ("Plan marketing campaigns and schedule promotional activities across channels.",
          ["plan_marketing", "schedule"], True),
         ("Analyze sales data by region and product line to set marketing priorities.",
          ["analyze_sales"], True),
         ("Develop pricing strategies using cost data and research on competitors' prices.",
          ["estimate_costs", "research_market"], True),
         ("Meet with advertising agency staff to review campaign progress.", ["interview"], False),
     ]),
    ("11-3031.01", "Treasurers and Controllers",
     "Direct financial reporting, cash management and internal controls for an organisation.", [
         ("Direct the preparation of consolidated quarterly and annual financial reports.",
          ["prep_fin_reports"], True),
         ("Forecast cash flow and liquidity needs for the coming quarters.", ["forecast"], True),
         ("Develop internal control policies and procedures for financial transactions.",
          ["dev_policy"], True),
         ("Present quarterly financial results and the outlook to the board of directors.",
          ["present_results", "explain_fin"], True),
     ]),
    ("11-9021.00", "Construction Managers",
     "Plan, budget and coordinate construction projects from design to completion.", [
         ("Prepare project cost estimates and bid documents from plans and specifications.",
          ["estimate_costs"], True),
         ("Develop construction schedules and track progress against milestones.", ["schedule"], True),
         ("Walk work sites to check that work meets safety codes and specifications.",
          ["inspect_sites"], False),
         ("Review subcontractor contracts and change orders for cost and schedule risk.",
          ["review_contracts"], True),
     ]),
    ("13-1071.00", "Human Resources Specialists",
     "Recruit, place and support employees and keep personnel records and policies current.", [
         ("Maintain employee records and update personnel information in the HR database.",
          ["data_entry"], True),
         ("Draft and revise personnel policies and the employee handbook.", ["dev_policy"], True),
         ("Prepare training materials for new-employee orientation.", ["dev_training"], True),
         ("Compile statistics on hiring, turnover and absence for management reports.",
          ["compile_stats"], True),
     ]),
    ("13-1161.00", "Market Research Analysts and Marketing Specialists",
     "Study market conditions to estimate demand for products and services and advise on marketing.", [
         ("Collect and analyze survey data on consumer preferences and buying habits.",
          ["analyze_test", "compile_stats"], True),
         ("Research competitors' prices, products and marketing methods from public websites and reports.",
          ["research_market"], True),
         ("Prepare reports and charts that summarise market findings for management.",
          ["present_results", "compile_stats"], True),
         ("Monitor sales trends to measure the effectiveness of marketing programmes.",
          ["analyze_sales"], True),
     ]),
    ("13-2011.00", "Accountants and Auditors",
     "Examine, analyze and report on financial records, and check them against accounting rules.", [
         ("Prepare quarterly financial statements and management reports from the general ledger and "
          "supporting spreadsheets.", ["prep_fin_reports", "analyze_fin"], True),
         ("Analyze quarterly revenue and expense variances against budget and explain significant "
          "differences to management.", ["analyze_fin", "explain_fin"], True),
         ("Reconcile general ledger accounts with bank statements and subledgers and correct "
          "discrepancies.", ["reconcile"], True),
         ("Examine financial records and supporting documents for compliance with accounting standards "
          "and tax regulations.", ["audit_compliance"], True),
         ("Compute taxes owed and prepare tax returns from financial records.",
          ["prep_fin_reports", "collect_fin"], True),
     ]),
    ("13-2031.00", "Budget Analysts",
     "Prepare, review and monitor budgets and spending for public and private organisations.", [
         ("Prepare annual budget requests and estimate spending for each department.", ["prep_budget"], True),
         ("Compare actual expenditures with approved budgets and report variances.", ["analyze_fin"], True),
         ("Review budget proposals for completeness and compliance with funding rules.",
          ["audit_compliance"], True),
     ]),
    ("13-2051.00", "Financial and Investment Analysts",
     "Assess the financial performance of companies and investments to guide investment decisions.", [
         ("Build financial models that forecast revenue and earnings under alternative scenarios.",
          ["forecast"], True),
         ("Analyze company annual reports and regulatory filings to evaluate financial performance.",
          ["analyze_fin", "research_market"], True),
         ("Research industry and market conditions and summarise the findings for investment decisions.",
          ["research_market"], True),
         ("Prepare slide presentations of investment recommendations for clients or committees.",
          ["prep_slides", "present_results"], True),
     ]),
    ("15-1211.00", "Computer Systems Analysts",
     "Analyze an organisation's computer systems and design changes that make them serve it better.", [
         ("Write technical specifications for new system features from user requirements.",
          ["tech_docs"], True),
         ("Analyze system performance logs to identify bottlenecks.", ["analyze_ops"], True),
         ("Prepare user training guides for new software releases.", ["dev_training"], True),
         ("Plan system upgrade schedules with business stakeholders.", ["schedule"], True),
     ]),
    ("15-1242.00", "Database Administrators",
     "Administer, test and secure databases and the data they hold.", [
         ("Monitor database performance and track usage trends.", ["analyze_ops"], True),
         ("Reconcile data between source systems and the data warehouse and correct mismatched records.",
          ["reconcile"], True),
         ("Document database structures and data dictionaries.", ["tech_docs"], True),
     ]),
    ("15-2041.00", "Statisticians",
     "Design data collection and apply statistical methods to data to answer practical questions.", [
         ("Analyze survey and experimental data with statistical methods and report the results.",
          ["analyze_test", "compile_stats"], True),
         ("Design data collection forms and sampling plans for surveys.", ["tech_docs"], True),
         ("Clean and validate data sets, resolving missing or inconsistent values.", ["analyze_ops"], True),
     ]),
    ("17-2051.00", "Civil Engineers",
     "Plan, design and oversee the construction of roads, bridges, water systems and buildings.", [
         ("Prepare cost estimates for materials and labour on infrastructure projects.",
          ["estimate_costs"], True),
         ("Analyze survey reports, maps and soil test data to plan projects.", ["analyze_test"], True),
         ("Write technical specifications and design reports for structures.", ["tech_docs"], True),
         ("Visit project sites to monitor progress and adherence to the design.", ["inspect_sites"], False),
     ]),
    ("17-2112.00", "Industrial Engineers",
     "Design efficient systems that integrate workers, machines, materials and information.", [
         ("Analyze production data to measure efficiency and identify waste.", ["analyze_ops"], True),
         ("Develop quality control procedures and inspection standards.",
          ["dev_policy", "eval_quality"], True),
         ("Estimate production costs for proposed new processes.", ["estimate_costs"], True),
     ]),
    ("23-1011.00", "Lawyers",
     "Represent clients in legal matters and advise them on their rights and obligations.", [
         ("Review contracts and agreements to identify legal risks for clients.", ["review_contracts"], True),
         ("Research regulations that affect a client's business and advise on compliance.",
          ["review_regs"], True),
         ("Represent clients at court hearings and trials.", ["present_results"], False),
     ]),
    ("23-2011.00", "Paralegals and Legal Assistants",
     "Support lawyers by researching law, preparing documents and organising case files.", [
         ("Research laws, regulations and prior cases and summarise the findings for attorneys.",
          ["review_regs"], True),
         ("Draft contracts, pleadings and legal correspondence for attorney review.",
          ["draft_legal", "correspondence"], True),
         ("Organise and index case files and exhibits.", ["maintain_client"], True),
         ("Deliver documents to court clerks in person.", ["move_materials"], False),
     ]),
    ("29-1141.00", "Registered Nurses",
     "Assess patients, provide and coordinate care, and keep patient records.", [
         ("Administer medications and treatments to patients.", ["administer"], False),
         ("Record patient symptoms, vital signs and treatments in medical records.",
          ["maintain_client"], True),
         ("Analyze patient outcome data to improve care practices on the unit.", ["analyze_health"], True),
     ]),
    ("29-2072.00", "Medical Records Specialists",
     "Code, organise and check health information in patient records.", [
         ("Enter patient diagnoses and procedures into the electronic health record using standard codes.",
          ["maintain_client", "data_entry"], True),
         ("Audit patient records for completeness and coding accuracy.", ["audit_compliance"], True),
         ("Compile statistics on admissions, diagnoses and discharges for hospital reports.",
          ["compile_stats", "analyze_health"], True),
     ]),
    ("41-3091.00", "Sales Representatives of Services",
     "Sell services to businesses or individuals and keep account of client relationships.", [
         ("Prepare sales proposals and price quotes for prospective clients.",
          ["estimate_costs", "correspondence"], True),
         ("Maintain client records and log sales contacts in the customer database.", ["data_entry"], True),
         ("Analyze sales figures by territory and report progress against targets.", ["analyze_sales"], True),
         ("Visit clients to demonstrate services in person.", ["present_results"], False),
     ]),
    ("41-4012.00",
     "Sales Representatives, Wholesale and Manufacturing, Except Technical and Scientific Products",
     "Sell goods for wholesalers or manufacturers to businesses and institutions.", [
         ("Track customers' inventory levels and place stock orders for them.", ["maintain_inventory"], True),
         ("Answer customer enquiries about products, prices and delivery by email.",
          ["correspondence"], True),
         ("Transport product samples to customer sites.", ["move_materials"], False),
     ]),
    ("43-3031.00", "Bookkeeping, Accounting, and Auditing Clerks",
     "Record financial transactions and keep financial records complete and accurate.", [
         ("Record financial transactions and post them to the ledgers.", ["maintain_fin"], True),
         ("Reconcile invoices with payment records and resolve discrepancies.", ["reconcile"], True),
         ("Prepare monthly expense reports and summary spreadsheets.", ["prep_fin_reports"], True),
         ("Check figures and calculations on invoices and vouchers for accuracy.",
          ["audit_compliance"], True),
     ]),
    ("43-5061.00", "Production, Planning, and Expediting Clerks",
     "Coordinate the flow of work and materials and keep production on schedule.", [
         ("Compile production schedules from customer orders and material availability.",
          ["schedule", "maintain_inventory"], True),
         ("Track material inventory and order supplies when stock runs low.", ["maintain_inventory"], True),
         ("Prepare status reports on production progress and delays.", ["analyze_ops"], True),
     ]),
    ("43-6014.00", "Secretaries and Administrative Assistants, Except Legal, Medical, and Executive",
     "Carry out administrative and clerical work that keeps an office running.", [
         ("Schedule meetings and maintain managers' calendars.", ["schedule"], True),
         ("Prepare correspondence, memos and meeting minutes.", ["correspondence"], True),
         ("Maintain filing systems and office records.", ["data_entry"], True),
         ("Greet visitors at the front desk and direct them.", ["interview"], False),
     ]),
    ("47-2061.00", "Construction Laborers",
     "Do physical work at construction sites: loading, digging, cleaning and assisting trades.", [
         ("Load and unload building materials at construction sites.", ["move_materials"], False),
         ("Operate hand and power tools.", ["operate_equipment"], False),
         ("Read job orders and record the materials used each day.", ["data_entry"], True),
     ]),
]

# A sector scheme in the paper's style (sectors with sub-sectors); it replaces the SOC major groups.
SECTOR_MAPPING: list[tuple[str, str, str]] = [
    ("11", "Management and Strategy", "General management"),
    ("11-3031", "Finance and Accounting", "Corporate finance"),
    ("13-1", "Business Services", "People and market services"),
    ("13-2", "Finance and Accounting", "Accounting and analysis"),
    ("15", "Information Technology", "Data and systems"),
    ("17", "Engineering and Construction", "Engineering design"),
    ("11-9021", "Engineering and Construction", "Construction management"),
    ("47", "Engineering and Construction", "Construction trades"),
    ("23", "Legal Services", "Legal practice"),
    ("29", "Health Care", "Clinical care and records"),
    ("41", "Sales and Trade", "Sales"),
    ("43-3", "Finance and Accounting", "Financial clerical work"),
    ("43", "Administrative Support", "Office operations"),
]

TXT_HEADERS = {
    "Occupation Data": ["O*NET-SOC Code", "Title", "Description"],
    "Task Statements": ["O*NET-SOC Code", "Task ID", "Task", "Task Type", "Incumbents Responding", "Date",
                        "Domain Source"],
    "Tasks to DWAs": ["O*NET-SOC Code", "Task ID", "DWA ID", "Date", "Domain Source"],
    "DWA Reference": ["Element ID", "IWA ID", "DWA ID", "DWA Title"],
    "IWA Reference": ["Element ID", "IWA ID", "IWA Title"],
    "Content Model Reference": ["Element ID", "Element Name", "Description"],
}
# The .xlsx form of Tasks to DWAs also carries the occupation, task and DWA titles.
XLSX_TASKS_TO_DWAS = [
    "O*NET-SOC Code", "Title", "Task ID", "Task", "DWA ID", "DWA Title", "Date", "Domain Source",
]


def dwa_ids() -> dict[str, tuple[str, str, str]]:
    """DWA key -> (DWA id, title, IWA id), with ids in the official dotted form."""
    out: dict[str, tuple[str, str, str]] = {}
    for gwa_id, _, iwas in HIERARCHY:
        for iwa_suffix, _, dwas in iwas:
            iwa_id = f"{gwa_id}.{iwa_suffix}"
            for n, (key, title) in enumerate(dwas, start=1):
                out[key] = (f"{iwa_id}.D{n:02d}", title, iwa_id)
    return out


def tables() -> dict[str, list[list[str]]]:
    """Every release table as rows of strings (header first), in the text-release column order."""
    ids = dwa_ids()
    occ_rows: list[list[str]] = []
    task_rows: list[list[str]] = []
    link_rows: list[list[str]] = []
    task_id = 90000
    for soc, title, description, tasks in OCCUPATIONS:
        occ_rows.append([soc, title, description])
        for n, (statement, keys, _) in enumerate(tasks):
            task_id += 1
            task_type = "Core" if n < 2 else "Supplemental"
            incumbents = str(20 + task_id % 37)
            task_rows.append([soc, str(task_id), statement, task_type, incumbents, _DATE, _SOURCE])
            link_rows.extend([soc, str(task_id), ids[k][0], _DATE, _SOURCE] for k in keys)
    dwa_rows = [[gwa_id, iwa_id, dwa_id, title]
                for key, (dwa_id, title, iwa_id) in ids.items()
                for gwa_id in [iwa_id.rsplit(".", 1)[0]]]
    iwa_rows = [[gwa_id, f"{gwa_id}.{suffix}", title]
                for gwa_id, _, iwas in HIERARCHY for suffix, title, _ in iwas]
    cm_rows = [list(e) for e in CONTENT_MODEL_EXTRA]
    cm_rows += [[gwa_id, name, f"Work activity: {name.lower()}."] for gwa_id, name, _ in HIERARCHY]
    body = {"Occupation Data": occ_rows, "Task Statements": task_rows, "Tasks to DWAs": link_rows,
            "DWA Reference": dwa_rows, "IWA Reference": iwa_rows, "Content Model Reference": cm_rows}
    return {name: [TXT_HEADERS[name], *rows] for name, rows in body.items()}


def task_labels() -> list[tuple[str, bool]]:
    """(task id, DIGITAL) for every sample task, in task-id order."""
    out, task_id = [], 90000
    for _, _, _, tasks in OCCUPATIONS:
        for _, _, digital in tasks:
            task_id += 1
            out.append((str(task_id), digital))
    return out


def _write_tsv(path: Path, rows: Iterable[Sequence[str]]) -> None:
    # Official text releases: UTF-8, tab-delimited, unquoted, one header line, CRLF-free.
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, delimiter="\t", quoting=csv.QUOTE_NONE, escapechar="\\", lineterminator="\n")
        writer.writerows(rows)


def write_release(folder: Path, form: str = "txt", rename: dict[str, tuple[str, str]] | None = None) -> Path:
    """Write the sample release into ``folder`` as .txt (default) or .xlsx files; returns the folder.

    ``rename`` maps a file stem to (old column, new column) to make a broken release for tests.
    """
    folder.mkdir(parents=True, exist_ok=True)
    data = tables()
    if form == "xlsx":
        data["Tasks to DWAs"] = _xlsx_links(data)
    for stem, (old, new) in (rename or {}).items():
        data[stem][0] = [new if h == old else h for h in data[stem][0]]
    for stem, rows in data.items():
        if form == "txt":
            _write_tsv(folder / f"{stem}.txt", rows)
        elif form == "xlsx":
            _write_xlsx(folder / f"{stem}.xlsx", stem, rows)
        else:
            raise ValueError(f"unknown release form {form!r} (txt or xlsx)")
    (folder / "Read Me.txt").write_text(
        f"O*NET {RELEASE_ID} Database - GraphForge sample extract (written by code; not O*NET content)\n",
        encoding="utf-8")
    return folder


def _xlsx_links(data: dict[str, list[list[str]]]) -> list[list[str]]:
    titles = {r[0]: r[1] for r in data["Occupation Data"][1:]}
    statements = {r[1]: r[2] for r in data["Task Statements"][1:]}
    dwa_titles = {r[2]: r[3] for r in data["DWA Reference"][1:]}
    rows = [XLSX_TASKS_TO_DWAS]
    for soc, task_id, dwa_id, date, source in data["Tasks to DWAs"][1:]:
        rows.append([soc, titles[soc], task_id, statements[task_id], dwa_id, dwa_titles[dwa_id], date,
                     source])
    return rows


def _write_xlsx(path: Path, stem: str, rows: list[list[str]]) -> None:
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.worksheets[0]
    sheet.title = stem[:31]
    for row in rows:
        # Official .xlsx files store Task ID as a number; the reader must turn 90001.0 back into "90001".
        sheet.append([int(v) if h == "Task ID" and v.isdigit() else v
                      for h, v in zip(rows[0], row, strict=True)])
    book.save(path)


def write_digital_labels(path: Path) -> Path:
    """A DIGITAL labels file (CSV, AI4Work style: task id -> yes/no) for every sample task."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(["Task ID", "DIGITAL"])
        writer.writerows([task_id, "yes" if digital else "no"] for task_id, digital in task_labels())
    return path


def write_sector_mapping(path: Path) -> Path:
    """A user sector mapping (SOC prefix -> sector, sub-sector) for the sample occupations."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(["soc", "sector", "sub_sector"])
        writer.writerows(SECTOR_MAPPING)
    return path


def write_sample(folder: Path) -> dict[str, Path]:
    """Write the whole taxonomy sample into ``folder``: the release (txt), DIGITAL labels, sector mapping.

    The release reader ignores the two extra files, so ``folder`` loads as a release as it is
    (tests/fixtures/onet_mini is this output, committed).
    """
    release = write_release(folder)
    return {"release": release,
            "labels": write_digital_labels(folder / "digital_labels.csv"),
            "sectors": write_sector_mapping(folder / "sectors.csv")}


def write_synthetic_release(folder: Path, occupations: int = 1000, tasks_per_occupation: int = 19,
                            dwas: int = 2100, links_per_task: float = 1.2, seed: int = 7) -> Path:
    """A release-shaped extract at full O*NET scale, for load benchmarks (synthetic, labelled as such)."""
    import random

    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    groups = ["11", "13", "15", "17", "19", "21", "23", "25", "27", "29", "31", "33", "35", "37", "39", "41",
              "43", "45", "47", "49", "51", "53"]
    gwa_ids = [f"4.A.9.{chr(97 + g % 26)}.{g + 1}" for g in range(41)]
    iwa_ids = [f"{gwa_ids[i % len(gwa_ids)]}.I{i:03d}" for i in range(330)]
    dwa_ids_ = [f"{iwa_ids[d % len(iwa_ids)]}.D{d:04d}" for d in range(dwas)]
    occ = [f"{groups[i % len(groups)]}-{1000 + i:04d}.00" for i in range(occupations)]
    data = {name: [header] for name, header in TXT_HEADERS.items()}
    data["Content Model Reference"] += [[g, f"Synthetic work activity {n}", ""]
                                        for n, g in enumerate(gwa_ids)]
    data["IWA Reference"] += [[i.rsplit(".", 1)[0], i, f"Synthetic IWA {n}"] for n, i in enumerate(iwa_ids)]
    data["DWA Reference"] += [[d.rsplit(".", 2)[0], d.rsplit(".", 1)[0], d, f"Synthetic DWA {n}"]
                              for n, d in enumerate(dwa_ids_)]
    task_id = 100000
    for soc in occ:
        data["Occupation Data"].append([soc, f"Synthetic occupation {soc}", "Synthetic description."])
        for _ in range(tasks_per_occupation):
            task_id += 1
            data["Task Statements"].append([soc, str(task_id), f"Synthetic task statement {task_id}.", "Core",
                                            "30", _DATE, _SOURCE])
            for d in rng.sample(dwa_ids_, 1 + (rng.random() < links_per_task - 1)):
                data["Tasks to DWAs"].append([soc, str(task_id), d, _DATE, _SOURCE])
    for stem, rows in data.items():
        _write_tsv(folder / f"{stem}.txt", rows)
    return folder
