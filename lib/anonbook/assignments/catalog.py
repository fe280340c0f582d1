"""The course's graded assignments: at least two per chapter, each reproducing one claim of the ledger.

Each :class:`~anonbook.assignments.model.Assignment` names its claim; the value the autograder expects is the
one the book computed (:func:`~anonbook.assignments.model.expected_value`), never a number written here. The
slide-sized examples (chapter 1's tables, chapter 3's weights and scores, the arithmetic of chapters 4, 5, 7
and 9) are computed from scratch; the others with the library call the chapter uses, on data that load in
seconds. ``wrong`` is a mistake students make; the tests check that the autograder fails it.
"""

from __future__ import annotations

from anonbook.assignments.model import Assignment

__all__ = ["ASSIGNMENTS", "by_chapter"]

_CH1, _CH2, _CH3 = "01_syntactic_anonymity", "02_dp_vs_definetti", "03_netflix_eccentricity"
_CH4, _CH5, _CH6A = "04_census_reconstruction", "05_nonmember_framework", "06a_diffix_differential"
_CH6B, _CH7, _CH8, _CH9 = "06b_diffix_cloning", "07_membership_base_rates", "08_passive_active", "09_one_yardstick"

_CLAIM = "from anonlab.claims import claim\n"

ASSIGNMENTS: tuple[Assignment, ...] = (
    # --- chapter 1: the slides' tables, from scratch ------------------------------------------------------------
    Assignment(
        _CH1, "k-anonymity", "slides.kanon.fig2.k", "k of the slides' 4-anonymous inpatient table",
        "The slides' Figure 2 is said to be 4-anonymous. Compute **k** of the table from scratch with pandas: "
        "group the records by the quasi-identifiers (ZIP code, age, nationality) and take the smallest "
        "equivalence class. Set `answer` to that size (an integer). Runs in well under a second.",
        "from anonlab.data import tables\nfig2 = tables.inpatient_4_anonymous()\n"
        "qis = tables.INPATIENT_QUASI_IDENTIFIERS  # ['zip_code', 'age', 'nationality']\nfig2",
        "answer = int(fig2.groupby(qis).size().min())",
        "answer = int(fig2.groupby(qis + ['condition']).size().min())",
        "groups by the sensitive attribute too (the condition is not a quasi-identifier), which gives k = 1"),
    Assignment(
        _CH1, "t-closeness-salary", "slides.tclose.salary_t", "t of the Salary column (ordered distance)",
        "The slides' t-closeness table releases Salary. Compute from scratch the Earth Mover's Distance with the "
        "*ordered distance* between each equivalence class (grouped by ZIP code and age) and the whole table: "
        "over the m distinct salaries in order, EMD = Σ_i |Σ_{j≤i} (p_j − q_j)| / (m − 1) (Li, Li & "
        "Venkatasubramanian 2007, Sec. 4.2). Set `answer` to the largest EMD over the classes (t).",
        "import numpy as np\nfrom anonlab.data import tables\nsdt = tables.salary_disease_t_close()\n"
        "qis = tables.SALARY_DISEASE_QUASI_IDENTIFIERS  # ['zip_code', 'age']\nsdt",
        "values = np.sort(sdt['salary'].unique())\nm = len(values)\n"
        "q = sdt['salary'].value_counts(normalize=True).reindex(values, fill_value=0).to_numpy()\n"
        "emds = []\nfor _, cls in sdt.groupby(qis):\n"
        "    p = cls['salary'].value_counts(normalize=True).reindex(values, fill_value=0).to_numpy()\n"
        "    emds.append(np.abs(np.cumsum(p - q)).sum() / (m - 1))\nanswer = float(max(emds))",
        "values = np.sort(sdt['salary'].unique())\nm = len(values)\n"
        "q = sdt['salary'].value_counts(normalize=True).reindex(values, fill_value=0).to_numpy()\n"
        "emds = []\nfor _, cls in sdt.groupby(qis):\n"
        "    p = cls['salary'].value_counts(normalize=True).reindex(values, fill_value=0).to_numpy()\n"
        "    emds.append(np.abs(np.cumsum(p - q)).sum() / m)\nanswer = float(max(emds))",
        "divides by m instead of m − 1 (the largest ordered distance), so every EMD is 8/9 of the right one"),
    # --- chapter 2: Adult as Cormode uses it ---------------------------------------------------------------------
    Assignment(
        _CH2, "adult-tuples", "cormode.s2_3.adult.n_tuples", "How many Adult tuples the attack uses",
        "Cormode's §2.3 uses the Adult training file without the rows whose sensitive attribute (occupation) is "
        "missing. Load it with `anonlab.data.load_adult('train')` and set `answer` to the number of rows the "
        "attack on occupation uses (an integer). Takes a second.",
        "from anonlab.data import load_adult\nadult = load_adult('train')\nadult.isna().sum()",
        "answer = int(adult['occupation'].notna().sum())",
        "answer = len(adult.dropna())",
        "drops every row with any missing value (native country too), the Diffix paper's filter, not Cormode's"),
    Assignment(
        _CH2, "majority-baseline", "cormode.fig1.occupation.majority_baseline",
        "The majority baseline for occupation",
        "Figure 1's flat line is the accuracy of always guessing the most common occupation. Compute it on the "
        "Adult training rows with a known occupation: the share of the most frequent value. Set `answer` to that "
        "share (a fraction). Takes a second.",
        "from anonlab.data import load_adult\nadult = load_adult('train')\noccupation = adult['occupation'].dropna()",
        "answer = float(occupation.value_counts(normalize=True).iloc[0])",
        "answer = 1 / occupation.nunique()",
        "takes a uniform random guess (1 / number of occupations) as the baseline instead of the majority guess"),
    # --- chapter 3: the slides' weighted scoring, from scratch -----------------------------------------------------
    Assignment(
        _CH3, "weight-v1", "slides.netflix.weight_v1", "The weight of movie v1",
        "The 'Weighted Scoring Algorithm' slide weighs movie i by w(i) = 1 / log |supp(i)|, where supp(i) is the "
        "set of records that rated i. With Narayanan and Shmatikov's natural logarithm, compute w(v1) for the "
        "slide's three-record table (from the ledger's parameters). Set `answer` to it.",
        "import math\n" + _CLAIM + "db = claim('slides.netflix.score_r1').params['db']  # record -> ratings of v1, v2, v3\n"
        "db",
        "support_v1 = sum(1 for ratings in db.values() if ratings[0] is not None)\nanswer = 1 / math.log(support_v1)",
        "support_v1 = sum(1 for ratings in db.values() if ratings[0] is not None)\nanswer = 1 / math.log2(support_v1)",
        "takes the logarithm to base 2 (the book keeps N-S's natural log: the slide does not say)"),
    Assignment(
        _CH3, "score-r1", "slides.netflix.score_r1", "The score of record r1",
        "Score(aux, r) = the mean over the aux movies of w(i) · Sim(aux_i, r_i), with the slide's fitted weight "
        "w(i) = 1 / log2(|supp(i)| + 1) and Sim = 1 − |aux_i − r_i| / 5 (the rating range). Compute the score of "
        "record r1 for the slide's aux (from the ledger). Set `answer` to it.",
        "import math\n" + _CLAIM + "p = claim('slides.netflix.score_r1').params\ndb, aux = p['db'], p['aux']\n"
        "movies = ['v1', 'v2', 'v3']\ndb, aux",
        "terms = []\nfor name, value in aux.items():\n    i = movies.index(name)\n"
        "    support = sum(1 for r in db.values() if r[i] is not None)\n"
        "    terms.append(1 / math.log2(support + 1) * (1 - abs(value - db['r1'][i]) / 5))\n"
        "answer = sum(terms) / len(terms)",
        "terms = []\nfor name, value in aux.items():\n    i = movies.index(name)\n"
        "    support = sum(1 for r in db.values() if r[i] is not None)\n"
        "    terms.append(1 / math.log2(support + 1) * (1 - abs(value - db['r1'][i]) / 5))\n"
        "answer = sum(terms)",
        "sums the terms instead of averaging them over the aux movies"),
    # --- chapter 4: Francis & Wagner's arithmetic, from scratch ----------------------------------------------------
    Assignment(
        _CH4, "home-work", "fw.s3_2.home_work_share", "How much of a day home and work explain",
        "Francis & Wagner argue that a location trace is mostly home and work. With the ledger's hours at home "
        "and at work, compute the share of a day's hourly trace they explain. Set `answer` to it (a fraction).",
        _CLAIM + "hours = claim('fw.s3_2.home_work_share').params\nhours",
        "answer = (hours['home_hours'] + hours['work_hours']) / 24",
        "answer = hours['work_hours'] / 24",
        "counts only the hours at work"),
    Assignment(
        _CH4, "election", "fw.s3_1.election_example", "Reconstructing an election from its result",
        "An election result (votes for A and for B, from the ledger) lets anyone write down one ballot per vote. "
        "Reconstruct the ballots from the result, compare them (sorted) with the true ballots and set `answer` "
        "to the share that match.",
        "import numpy as np\n" + _CLAIM + "votes = claim('fw.s3_1.election_example').params\n"
        "true_ballots = np.random.default_rng(0).permutation(['A'] * votes['votes_A'] + ['B'] * votes['votes_B'])",
        "reconstructed = np.array(['A'] * votes['votes_A'] + ['B'] * votes['votes_B'])\n"
        "answer = float(np.mean(np.sort(true_ballots) == reconstructed))",
        "reconstructed = np.array(['B'] * len(true_ballots))\n"
        "answer = float(np.mean(np.sort(true_ballots) == reconstructed))",
        "guesses the winner for every ballot (the majority baseline) instead of using the counts"),
    # --- chapter 5: the base-rate example ------------------------------------------------------------------------
    Assignment(
        _CH5, "balanced-precision", "fw.s1.base_rate.balanced.precision", "Precision with half members",
        "§1's example: a population, a member share, the attack's false-positive and false-negative rates (from "
        "the ledger). Compute TP = (1 − FNR) · members, FP = FPR · non-members and the precision "
        "TP / (TP + FP). Set `answer` to the precision.",
        _CLAIM + "p = claim('fw.s1.base_rate.balanced.precision').params\np",
        "members = p['population'] * p['member_share']\nnon_members = p['population'] - members\n"
        "tp = (1 - p['fnr']) * members\nfp = p['fpr'] * non_members\nanswer = tp / (tp + fp)",
        "members = p['population'] * p['member_share']\nnon_members = p['population'] - members\n"
        "tp = (1 - p['fnr']) * members\nfp = p['fpr'] * non_members\nanswer = tp / members",
        "divides by the members (that is the recall, here 1) instead of by everyone the attack calls a member"),
    Assignment(
        _CH5, "skewed-tp", "fw.s1.base_rate.skewed.tp", "True positives when 1 % are members",
        "The same example with 1 % members (parameters from the ledger): how many members does the attack find? "
        "Set `answer` to TP = (1 − FNR) · members.",
        _CLAIM + "p = claim('fw.s1.base_rate.skewed.tp').params or claim('fw.s1.base_rate.skewed.precision').params\np",
        "answer = (1 - p['fnr']) * p['population'] * p['member_share']",
        "answer = (1 - p['fnr']) * p['population']",
        "forgets the member share: counts every person as a member"),
    # --- chapter 6a: the differential attack ---------------------------------------------------------------------
    Assignment(
        _CH6A, "acc-k5", "gadotti.s1.differential_acc_k5", "The differential attack's accuracy with 5 attributes",
        "Gadotti et al.'s likelihood-ratio test has an exact accuracy acc(k) when Diffix's noise is not rounded "
        "(App. A). Compute it for k = 5 known attributes with "
        "`anonlab.attacks.diffix.theory.theoretical_accuracy` and set `answer` to it. Takes a second.",
        "from anonlab.attacks.diffix import theory\nk = 5  # known attributes, not counting the secret",
        "answer = theory.theoretical_accuracy(k)",
        "answer = theory.theoretical_accuracy(k - 1)",
        "counts the secret among the k attributes (an off-by-one: acc(4))"),
    Assignment(
        _CH6A, "adult-records", "gadotti.s4.datasets.adult_records", "ADULT as the Diffix paper uses it",
        "The Diffix paper's ADULT has the training file's rows with no missing value. Load the training file with "
        "`anonlab.data.load_adult('train')` and set `answer` to the number of records the paper uses.",
        "from anonlab.data import load_adult\nadult = load_adult('train')",
        "answer = len(adult.dropna())",
        "answer = len(adult)",
        "keeps the rows with missing values"),
    # --- chapter 6b: value-unique classes and the cloning attack's cost ------------------------------------------
    Assignment(
        _CH6B, "queries-per-subset", "gadotti.s3.cloning.queries_per_subset", "Queries per attribute set",
        "The cloning attack validates its assumptions with |Δ| dummy conditions: one query per dummy with the "
        "target's value, one per dummy without it, and the attack query. With the ledger's |Δ|, set `answer` to "
        "the number of queries for one attribute set.",
        _CLAIM + "n_dummy = claim('gadotti.s3.cloning.queries_per_subset').params['n_dummy']",
        "answer = 2 * n_dummy + 1", "answer = n_dummy + 1",
        "counts one query per dummy instead of two"),
    Assignment(
        _CH6B, "value-unique-mean", "gadotti.s4.adult_value_unique_class_mean",
        "The mean size of ADULT's value-unique classes",
        "A value-unique class is a set of value-unique users sharing the same record without the secret. With "
        "`anonlab.data.diffix_datasets` load ADULT (`adult()`) and set `answer` to the mean class size "
        "(`value_unique_classes`). Takes a few seconds.",
        "from anonlab.data import diffix_datasets as dd\nds = dd.adult()",
        "answer = float(dd.value_unique_classes(ds.data, ds.attributes, ds.secret).mean())",
        "answer = float(dd.uniqueness(ds.data, ds.attributes, ds.secret)['value_unique'].mean())",
        "takes the share of value-unique users for the mean class size"),
    # --- chapter 7: skews and Shokri's training share, from scratch -----------------------------------------------
    Assignment(
        _CH7, "skew-hospitals", "fw.s5.skew_hospitals", "The member:non-member skew of the Hospitals scenario",
        "If a fraction r of the population visits a hospital and the model's training set samples a fraction f "
        "of the visitors, a person the attacker picks is a member with probability r · f. Write the skew as "
        "1 : x (one member for x non-members) and set `answer` to x (ledger parameters).",
        _CLAIM + "p = claim('fw.s5.skew_hospitals').params\np",
        "share = p['hospital_visit_rate_4y'] * p['train_fraction']\nanswer = (1 - share) / share",
        "share = p['hospital_visit_rate_4y'] * p['train_fraction']\nanswer = 1 / share",
        "takes 1 / share (one member in x people) for the odds (one member for x non-members)"),
    Assignment(
        _CH7, "train-fraction", "fw.s5.shokri.train_fraction", "Shokri's training share of the dataset",
        "Shokri et al. train on a sample of the Texas hospital dataset (sizes from the ledger). Set `answer` to "
        "the share of the dataset's records in the training set.",
        _CLAIM + "p = claim('fw.s5.shokri.train_fraction').params\np",
        "answer = p['train_records'] / p['dataset_records']",
        "answer = p['train_records'] / (p['dataset_records'] - p['train_records'])",
        "divides by the records left out of training instead of all records"),
    # --- chapter 8: Example 7, the thresholded referendum ----------------------------------------------------------
    Assignment(
        _CH8, "passive-private", "desfontaines.ex7.passive_private", "The thresholded tally against a passive attacker",
        "Example 7: a referendum tally released only above a threshold. With "
        "`anonlab.mechanisms.thresholding.tally_partial_knowledge_delta` compute the passive attacker's δ at "
        "ε = 1 for the thresholded tally (the book's parameters: 1,000 voters, threshold 100, 100 known votes, "
        "Yes probability 10⁻⁴) and set `answer` to whether it is at most the book's privacy bar δ = 10⁻⁶. "
        "Takes a second.",
        "import numpy as np\nfrom anonlab.mechanisms.thresholding import tally_partial_knowledge_delta, "
        "thresholded_tally, exact_tally\nn_voters, threshold, known, p, bar = 1000, 100, 100, 1e-4, 1e-6",
        "r = tally_partial_knowledge_delta(thresholded_tally(threshold), n_voters, p, known, [1.0])\n"
        "answer = bool(np.exp(r.log_passive[0]) <= bar)",
        "r = tally_partial_knowledge_delta(exact_tally(), n_voters, p, known, [1.0])\n"
        "answer = bool(np.exp(r.log_passive[0]) <= bar)",
        "measures the plain tally, without the threshold"),
    Assignment(
        _CH8, "active-defeats", "desfontaines.ex7.active_defeats_threshold", "The active attacker and the threshold",
        "Same mechanism; the active attacker casts the 100 known votes itself. Compute the active δ at ε = 1 "
        "for the thresholded tally and for the plain tally; set `answer` to whether the threshold is defeated: "
        "the two δ are equal and above the bar δ = 10⁻⁶.",
        "import numpy as np\nfrom anonlab.mechanisms.thresholding import tally_partial_knowledge_delta, "
        "thresholded_tally, exact_tally\nn_voters, threshold, known, p, bar = 1000, 100, 100, 1e-4, 1e-6",
        "thr = tally_partial_knowledge_delta(thresholded_tally(threshold), n_voters, p, known, [1.0])\n"
        "plain = tally_partial_knowledge_delta(exact_tally(), n_voters, p, known, [1.0])\n"
        "d_thr, d_plain = np.exp(thr.log_active[0]), np.exp(plain.log_active[0])\n"
        "answer = bool(np.isclose(d_thr, d_plain) and d_thr > bar)",
        "thr = tally_partial_knowledge_delta(thresholded_tally(threshold), n_voters, p, known, [1.0])\n"
        "plain = tally_partial_knowledge_delta(exact_tally(), n_voters, p, known, [1.0])\n"
        "d_thr, d_plain = np.exp(thr.log_passive[0]), np.exp(plain.log_passive[0])\n"
        "answer = bool(np.isclose(d_thr, d_plain) and d_thr > bar)",
        "uses the passive δ (votes drawn at random) where the attacker chooses the votes"),
    # --- chapter 9: the one yardstick (precision at a base rate, precision improvement) ---------------------------
    Assignment(
        _CH9, "pi", "fw.s4_3.pi_example_2", "Precision improvement, the yardstick's score",
        "Chapter 9 scores every attack by its precision improvement over a baseline, PI = (P_atk − P_base) / "
        "(1 − P_base) ([FW24] Eq 6). Compute PI for the ledger's example precisions and set `answer` to it.",
        _CLAIM + "p = claim('fw.s4_3.pi_example_2').params\np",
        "answer = (p['p_atk'] - p['p_base']) / (1 - p['p_base'])",
        "answer = (p['p_atk'] - p['p_base']) / p['p_base']",
        "normalises by the baseline's precision (a relative gain) instead of by what is left to gain",
        results_from=_CH5),
    Assignment(
        _CH9, "skewed-precision", "fw.s1.base_rate.skewed.precision", "Precision when 1 % are members",
        "The yardstick's precision depends on the base rate. For §1's example with 1 % members (ledger "
        "parameters) compute TP, FP and set `answer` to the precision TP / (TP + FP).",
        _CLAIM + "p = claim('fw.s1.base_rate.skewed.precision').params\np",
        "members = p['population'] * p['member_share']\n"
        "tp = (1 - p['fnr']) * members\nfp = p['fpr'] * (p['population'] - members)\nanswer = tp / (tp + fp)",
        "members = p['population'] * p['member_share']\n"
        "answer = 1 - p['fpr']",
        "confuses precision with the share of non-members the attack leaves alone (1 − FPR)",
        results_from=_CH5),
)

def by_chapter() -> dict[str, list[Assignment]]:
    """The assignments grouped by chapter, in the book's order."""
    out: dict[str, list[Assignment]] = {}
    for a in ASSIGNMENTS:
        out.setdefault(a.chapter, []).append(a)
    return out
