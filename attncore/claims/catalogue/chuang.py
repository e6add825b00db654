"""The claims of Chuang et al. (2023), a searched scaling factor.

Each claim: its words, the book's reading and the sentences that say its verdict."""

from __future__ import annotations

from attncore.claims.catalogue.reasons import (
    EXACT,
    REPORTED_SIMULATION,
    proof,
)
from attncore.claims.claim import Claim, Kind, Verdict

_TWO_SIZES = (
    "confirming it needs a second training-set size, and the chapter trains one (the rule says "
    "what one size can refute)"
)

_II_CHECK = (
    "the library initializers and the two references of the chapter's table, on "
    "unit-variance tokens; (ii) met = Q and K variance 1 within a tolerance plus sampling "
    "error; zero means and (iv) met = every mean and covariance 0 within sampling error; "
    "(iii)'s unit variance is (ii) itself"
)
"""How the two claims on Chuang's condition (ii) are checked."""

_II_WORDS = {
    "init": "{label}: (ii) {ii:met|unmet} (Q variance {q:.3g}), zero means "
    "{means:met|unmet}, (iv) {iv:met|unmet} (largest covariance z {cov_z:.2f})"
}
"""How one initializer's conditions read in a verdict on (ii)."""


def _proof(section: str, quote: str) -> Claim:
    """One of Chuang's Propositions 1 to 4 (his appendix), its proof checked line by line."""
    return proof(
        "derivations",
        "chuang2023scaling",
        section,
        quote,
        "Every line of the proof, re-derived in sympy, simplifies to the next.",
    )


CLAIMS: dict[str, Claim] = {
    "chuang-any-scalar-product-dk": Claim(
        "why_sqrt_d",
        "chuang2023scaling",
        "1",
        r"Furthermore, by convention, let $d_k = d_q$ . Then, with the four above conditions "
        r"satisfied, the any scalar products of column vectors in $Q^t$ and $K$ have variance "
        r"$d_k$ (see Appendix).",
        "With weights scaled so that the projected entries have unit variance (conditions (i) "
        "to (iv)), the scalar product of any query and key has variance d_k: two different "
        "tokens, and a token with itself; queries and keys that meet (iv) only as zero "
        "covariances are reported apart.",
        check="Monte Carlo over fresh weights and tokens, the two kinds of pair apart; the "
        "counterexamples to Proposition 5 against assumption (iv)",
        says={
            "holds": "with unit-variance projections the logit variance is d_k = {d_k} for two "
            "different tokens ({z_two:.1f} standard errors away) and for a token with itself "
            "({z_self:.1f} standard errors away, {z_factor:.1f} from {self_factor:.4f} d_k)"
            "{excluded:items:excluded}",
            "caveat": "with unit-variance projections two different tokens have logit variance "
            "d_k = {d_k} ({z_two:.1f} standard errors away), and a token with itself lies "
            "{z_self:.1f} standard errors from d_k and {z_factor:.1f} from {self_factor:.4f} "
            "d_k; uncorrelated but dependent queries and keys break it ({laws:items:law}"
            "{itself:, and the token with itself|}): they meet assumption (iv) only if "
            "'independent in the following ways' means zero covariances"
            "{excluded:items:excluded}",
            "caveat-itself": "with unit-variance projections two different tokens have logit "
            "variance d_k = {d_k} ({z_two:.1f} standard errors away), but a token with itself "
            "has {self_factor:.4f} d_k ({z_self:.1f} standard errors from d_k, {z_factor:.1f} "
            "from its own closed form): uncorrelated with itself but dependent, it meets "
            "assumption (iv) only if 'independent in the following ways' means zero "
            "covariances{excluded:items:excluded}",
            "fails": "with unit-variance projections two different tokens miss d_k = {d_k}: "
            "their logit variance lies {z_two:.1f} standard errors from it; a token with itself "
            "lies {z_self:.1f} standard errors from d_k and {z_factor:.1f} from "
            "{self_factor:.4f} d_k",
            "untestable": "with unit-variance projections two different tokens have logit "
            "variance d_k = {d_k} ({z_two:.1f} standard errors away), but a token with itself "
            "matches neither closed form ({z_self:.1f} standard errors from d_k, "
            "{z_factor:.1f} from {self_factor:.4f} d_k), so no verdict",
        },
        words={
            "law": "{label}, {simulated:.1f} instead of d_k",
            "excluded": "; assumption (iv) excludes {labels:list} among Proposition 5's "
            "counterexamples (q_i correlated with some k_j)",
        },
    ),
    "chuang-assumptions-necessary": Claim(
        "why_sqrt_d",
        "chuang2023scaling",
        "2",
        r"To be able to make sense to use the scaling factor $\beta = \frac{1}{\sqrt{d_k}}$ in "
        r"the self-attention function, the four assumptions are necessary.",
        "Read as logical necessity: no law that breaks one of the four assumptions gives "
        "Var(q·k) = d_k. A law breaking an assumption with variance d_k by derivation and "
        "simulation refutes it.",
        unreachable={
            Verdict.CAVEAT: "necessity is refuted by one law that breaks an assumption and "
            "still gives d_k; laws that miss d_k confirm what was tried, with nothing to qualify"
        },
        check="laws that break an assumption, derived and simulated",
        says={
            "holds": "every law that breaks an assumption misses Var(q·k) = d: {laws:details:law}",
            "fails": "the assumptions are sufficient for Var(q·k) = d, not necessary: "
            "{laws:details:law}",
            "untestable": "a simulation disagrees with its closed form, so no verdict: "
            "{laws:details:law}",
            "no-law": "no law breaking an assumption was tried",
        },
        words={
            "law": "{law}: logit variance {exact:exactly|not} d by the derivation, simulation "
            "within {z:.1f} standard errors of the derivation",
        },
    ),
    "chuang-proposition-1": _proof(
        "6, Proposition 1",
        r"Proposition 1. … $$\text{Var}[X] = \mathbb{E}(X^2) + (\mathbb{E}[X])^2 - "
        r"2(\mathbb{E}[x])^2 = \mathbb{E}(X^2) - (\mathbb{E}X)^2.$$",
    ),
    "chuang-proposition-2": _proof(
        "6, Proposition 2",
        r"Proposition 2. … $$\text{Cov}[X, Y] = \mathbb{E}XY - \mathbb{E}X\mathbb{E}Y.$$",
    ),
    "chuang-proposition-3": _proof(
        "6, Proposition 3",
        r"Proposition 3. If $X$ and $Y$ are independent and both have zero means, then … "
        r"$$\text{Var}[XY] = \text{Var}X \text{Var}Y.$$",
    ),
    "chuang-proposition-4": _proof(
        "6, Proposition 4",
        r"Proposition 4. Let $X_i, i \in \{1, \dots, n\}$ be $n$ independent variables. … "
        r"$$\text{Var}\left(\sum_i X_i\right) = \sum_i \text{Var}X_i.$$",
    ),
    "chuang-proposition-5": Claim(
        "why_sqrt_d",
        "chuang2023scaling",
        "6, Proposition 5",
        r"Proposition 5. Let $q_i$ and $k_i$ be random variables with zero means, i.e. "
        r"$\mathbb{E}q_i = 0 = \mathbb{E}k_i, \forall i$ , and unit variances, i.e. "
        r"$\text{Var}q_i = 1 = \text{Var}k_i$ , where $i \in \{1, \dots, d_k\}$ , and they are "
        r"all independent in the following ways: … $$\text{Cov}(q_i, k_i) = 0, \forall i,$$ … "
        r"$$\text{Cov}(q_i, q_j) = 0, \forall i \neq j, \text{ and}$$ … "
        r"$$\text{Cov}(k_i, k_j) = 0, \forall i \neq j.$$ … Then … "
        r"$$\text{Var}(QK^T) = d_k.$$",
        "Zero means, unit variances and the three listed zero covariances give Var(q·k) = d_k. "
        "Read charitably ('independent in the following ways'): a counterexample whose listed "
        "pairs are all independent refutes it; one whose pairs are only uncorrelated refutes "
        "the covariance reading alone (a caveat).",
        check="counterexamples with every listed covariance zero (independent pairs marked), "
        "derived and simulated at d_k = {d_k}",
        says={
            "holds": "no law breaks it; logit variance at d_k = {d_k}: {laws:details:law}",
            "fails": "a law whose listed pairs are all independent breaks it; logit variance at "
            "d_k = {d_k}: {laws:details:law}",
            "caveat": "only laws with uncorrelated but dependent pairs break it, so it fails if "
            "'independent in the following ways' means zero covariances; logit variance at "
            "d_k = {d_k}: {laws:details:law}",
            "untestable": "a simulation disagrees with its own closed form, so no verdict; "
            "logit variance at d_k = {d_k}: {laws:details:law}",
        },
        words={
            "law": "{label}{independent: (every listed pair independent)|}, {simulated:.1f} "
            "simulated and {derived:g} derived, {z:.0f} standard errors from d_k",
        },
    ),
    "chuang-relaxed-variance": Claim(
        "why_sqrt_d",
        "chuang2023scaling",
        "2",
        r"Suppose the assumptions (ii) is relaxed, the variance of the scalar product "
        r"$q_i k_i$ is approximated to $(d_x \sigma_X^2 \sigma_{W_q}^2) \cdot (d_x \sigma_X^2 "
        r"\sigma_{W_k}^2) \cdot d_k$ .",
        "For tokens X with entries of variance σ_X² and weights W_q, W_k with entries of "
        "variance σ_Wq², σ_Wk² (fresh draws), Var(q·k) = (d_x σ_X² σ_Wq²)(d_x σ_X² σ_Wk²) d_k for "
        "two distinct tokens; a token with itself (Chuang's q_i k_i) has it times "
        "1 + (κ − 1)/d_x, which 'approximated' admits.",
        unreachable={
            Verdict.CAVEAT: "'approximated' admits the token-with-itself factor "
            "1 + (κ − 1)/d_x, which the measured text reports; the two-token formula is exact "
            "or it is not"
        },
        check="symbolic derivation and Monte Carlo over fresh weights and tokens, d_k = {d_k}",
        says={
            "holds": "Chuang's formula is exact for two distinct tokens, not approximate: the "
            "largest |z| against it is {worst_two:.1f}; a token with itself has {self_factor:.4f} "
            "times its variance at d_x = {d_x} (1 + (κ − 1)/d_x, κ the token kurtosis), and its "
            "simulation lies within {worst_self:.1f} standard errors of that",
            "fails": "two distinct tokens miss Chuang's formula: the largest |z| against it is "
            "{worst_two:.1f}; a token with itself has {self_factor:.4f} times its variance at "
            "d_x = {d_x} (1 + (κ − 1)/d_x, κ the token kurtosis), and its simulation lies within "
            "{worst_self:.1f} standard errors of that",
            "untestable": "no pair of tokens was simulated",
        },
    ),
    "chuang-shift-invariance": Claim(
        "softmax_saturation",
        "chuang2023scaling",
        "1",
        r"Because of the mathematical form of the Boltzmann distribution, if the input is "
        r"$z_i + \epsilon$ , then $\text{Softmax}(\beta z_i + \epsilon) = "
        r"\text{Softmax}(\beta z_i)$ .",
        "Adding one constant to every logit leaves the softmax unchanged: on random rows, with "
        "and without shifts, to within the rounding of the shifted logits.",
        Kind.IDENTITY,
        unreachable={Verdict.CAVEAT: EXACT},
        check="{rows} random rows of {keys} logits, softmax with and without a shift; the "
        "tolerance is counted in roundings of the shifted logits",
        says={
            "holds": "every shift leaves the softmax unchanged within the tolerance: "
            "{shifts:items:shift}",
            "fails": "some shift moves the softmax beyond the tolerance: {shifts:items:shift}",
            "untestable": "no shift measured",
        },
        words={
            "shift": "shift {shift:g}: largest |difference| {difference:.1e} (rounding "
            "{rounding:.1e})"
        },
    ),
    "chuang-beta-only-at-init": Claim(
        "string_reversal",
        "chuang2023scaling",
        "2",
        r"Hence, the scaling factor $\beta = \frac{1}{\sqrt{d_k}}$ is only valid at the initial "
        r"point given the four assumptions at the initial point in the moduli space, and it can "
        r"hold true if the thermodynamic system described by the Boltzmann distribution is in "
        r"statics, i.e. its temperature is fixed.",
        "A change from a start that meets Chuang's premise: 1/√d is valid (a logit spread "
        "within a factor 2 of 1, what the four assumptions give) at initialization and stops "
        "being valid as training moves σ_Wq and σ_Wk. His 'it can hold true if ... its "
        "temperature is fixed' is the same statement from the other side (valid while nothing "
        "moves). A setup whose spread starts outside the band cannot test it.",
        check="1/√d runs of the learning-curve experiment, every seed; logit spread = standard "
        "deviation of q·k/√d_k across keys on the validation strings, mean over rows; 1/√d "
        "valid = a spread of about 1 (what the four assumptions give); a setup whose spread "
        "starts away from 1 does not meet Chuang's premise and cannot test the claim; σ_Wq "
        "σ_Wk moved = by more than a set factor",
        says={
            "holds": "1/√d stops being valid in every setup as σ_Wq σ_Wk move. "
            "{setups:details:setup}",
            "caveat": "Not every setup shows training end the validity of 1/√d cleanly"
            "{rests:items:rests}. {setups:details:setup}",
            "fails": "1/√d stays valid through training in some setup that starts from Chuang's "
            "premise{rests:items:rests}. {setups:details:setup}",
            "untestable": "No setup starts with a 1/√d logit spread of about 1: 1/√d is not "
            "valid even at initialization, so no run starts from Chuang's premise, and whether "
            "training ends its validity cannot be tested. {setups:details:setup}",
        },
        words={
            "setup": "{setup}: the 1/√d logit spread {status:words}, {s0:.3g} → {s1:.3g} "
            "(×{ratio:plain}, where Chuang's relaxed formula with the measured σ gives "
            "×{formula:plain}), with σ_Wq {wq0:.3g} → {wq1:.3g}, σ_Wk {wk0:.3g} → {wk1:.3g} and "
            "σ_X {x0:.3g} → {x1:.3g}",
            "rests": ": the spread starts away from 1 in {unmet:list}, which cannot test the "
            "claim, and the verdict rests on {rest:list}",
            "unmet": "is not about 1 at initialization (premise unmet)",
            "stays": "is about 1 at initialization and still at the end (1/√d stays valid)",
            "breaks": "is about 1 at initialization and not at the end (1/√d stops being valid)",
            "alone": "is about 1 at initialization and not at the end, while σ_Wq σ_Wk hardly "
            "move (something else moves it)",
            "mixed": "is about 1 at initialization, but the seeds disagree on the end",
        },
    ),
    "chuang-beta-search": Claim(
        "beyond_initialization",
        "chuang2023scaling",
        "2",
        r"Hence, an alternative algorithm is: firstly try $\beta \in \{10^N, \frac{1}{10^N}\}$ "
        r"for $N = 0, 1, 2, \dots$ , then run a binary search to narrow down the range of the "
        r"best scaling factor $\beta$ during the training after either each iteration or batch.",
        "The decade scan followed by a binary (golden-section) search finds the best β of a "
        "calibration problem whose optimum a fine grid locates: on the exact objective within "
        "its tolerance; on noisy evaluations (the stand-in for one evaluation during training) "
        "missing by more than 0.1 decade no more often than 5 % (binomial test).",
        check="a decade scan, then a golden-section search (the book's reading of the binary "
        "search), on a calibration problem whose optimum a grid of {grid} values of β locates; "
        "in the noisy version every evaluation sees a fresh subsample of the items, the book's "
        "stand-in for one evaluation during training, and a share of misses counts only where "
        "a one-sided binomial test rejects the share a working search may miss",
        says={
            "holds": "the search finds the optimum, β = {found:.3f} against the grid's "
            "{optimum:.3f} ({decades:.4f} decades off, objective {found_value:.4f} against "
            "{optimum_value:.4f}) in {evaluations} evaluations, and noisy evaluations make it "
            "miss no more often than a working search may: {misses:items:miss}",
            "exact-only": "the search finds the optimum, β = {found:.3f} against the grid's "
            "{optimum:.3f} ({decades:.4f} decades off, objective {found_value:.4f} against "
            "{optimum_value:.4f}) in {evaluations} evaluations; no noisy search was run",
            "caveat": "the search finds the optimum, β = {found:.3f} against the grid's "
            "{optimum:.3f} ({decades:.4f} decades off, objective {found_value:.4f} against "
            "{optimum_value:.4f}) in {evaluations} evaluations, but noisy evaluations make it "
            "miss too often at some noise level: {misses:items:miss}",
            "fails": "the search ends away from the optimum, at β = {found:.3f} against the "
            "grid's {optimum:.3f} ({decades:.4f} decades off, objective {found_value:.4f} "
            "against {optimum_value:.4f}) after {evaluations} evaluations",
            "untestable": "the grid's best β, {best:.3g}, lies at its edge ({edges:range:.3g}), "
            "so the grid does not locate the optimum",
        },
        words={
            "miss": "{percent:.0f} % of searches miss ({low:.0f} to {high:.0f} %, Wilson) with "
            "{items} items per evaluation"
        },
    ),
    "chuang-standard-init-conditions": Claim(
        "beyond_initialization",
        "chuang2023scaling",
        "1",
        r"Now, in a standard implementation of a transformer-based model or any models that "
        r"have self-attention mechanism implemented in it, $W_k, W_v$ , and $W_q$ are initiated "
        r"in a way to satisfy the following four conditions:",
        "The library defaults give, on unit-variance tokens, Q and K entries of unit variance "
        "((ii), (iii)), zero means (iii) and zero covariances (iv) (each within sampling error; "
        "a significant correlation of at most 0.05 is a caveat).",
        check="Q = X W_q + b_q and K = X W_k + b_k for standard normal tokens X, with weights "
        "and biases drawn as each library default does (documented formulas, re-implemented in "
        "numpy); standard errors over initializations; unit variance within a tolerance plus "
        "sampling error, means and covariances zero within sampling error",
        says={
            "holds": "every library default meets the conditions: the entries of Q and K have "
            "variance {defaults:items:qk}; the largest |z| of a mean is {mean_z:.1f}, of a "
            "covariance {cov_z:.1f} (largest |correlation| {corr:.3f})",
            "caveat": "the library defaults meet the conditions only in part (unit variance for "
            "some of them only, or a small but significant correlation): the entries of Q and K "
            "have variance {defaults:items:qk}; the largest |z| of a mean is {mean_z:.1f}, of a "
            "covariance {cov_z:.1f} (largest |correlation| {corr:.3f})",
            "fails": "the library defaults do not meet the conditions (unit variance for none "
            "of them, a nonzero mean or a sizeable correlation): the entries of Q and K have "
            "variance {defaults:items:qk}; the largest |z| of a mean is {mean_z:.1f}, of a "
            "covariance {cov_z:.1f} (largest |correlation| {corr:.3f})",
            "untestable": "no library default was measured",
        },
        words={"qk": "{q:.3f} and {k:.3f} ({label})"},
    ),
    "chuang-string-reversal": Claim(
        "string_reversal",
        "chuang2023scaling",
        "3",
        r"when the scaling factor $\beta$ is $\frac{1}{\sqrt{d_k}}$ the validation accuracy is "
        r"1.51%, and the test accuracy is 1.50%. … However, by applying the above alternative "
        r"algorithm, the scaling factor is in $O(1)$ , a constant $\sim 5$ , with training "
        r"sample size at 15000, the validation accuracy and test accuracy can already reach "
        r"above 95% stably.",
        "Chuang's gap: every seed of 1/√d below 5 % validation token accuracy while every seed "
        "of the searched β reaches 95 %, in every setup at both budgets, with the searched β "
        "about 5 (within a factor 2, in every search over seeds and budgets). Where a setup's "
        "searched β does not learn within the short budget its search evaluates, the search "
        "found no factor that learns there, and that setup says nothing either way.",
        check="validation token accuracy, {seeds:count:seed} per method ([…]: 95 % t interval "
        "over seeds); the gap = every seed of 1/√d at about guessing and every seed of the "
        "searched β learned; a setup where no seed of the searched β learns cannot test it; "
        "holds if the gap is in every other setup at both budgets and every search's β is "
        "about 5, with a caveat if it is in some (Chuang states no model, initialization or "
        "training length) or β is not about 5, does not hold if it is in none",
        says={
            "holds": "The gap appears in every setup that can test it, at both budgets: "
            "{where:items:gap}{near:items:near}{rests:items:rests}. {setups:details:setup}",
            "not-five": "The gap appears in every setup that can test it, at both budgets "
            "({where:items:gap}){near:items:near}{rests:items:rests}. {setups:details:setup}",
            "caveat": "The gap appears only in {where:items:gap}{near:items:near}"
            "{rests:items:rests}. {setups:details:setup}",
            "fails": "The gap appears nowhere{near:items:near}{rests:items:rests}. "
            "{setups:details:setup}",
            "untestable": "No setup can test the gap: the searched β learns the task in none. "
            "{setups:details:setup}",
        },
        words={
            "gap": "{setup} at {budget} steps",
            "near": "; the searched β is within a factor 2 of 5 in {near:share:search}",
            "rests": ". {untested:list} cannot test the claim (its search found no β that "
            "learns); the verdict rests on {tested:list}",
            "setup": "{setup}{searches:items:searches}: 1/√d {sqrt_short} vs searched β "
            "{beta_short} after {short} steps and {sqrt_long} vs {beta_long} after {long}, with "
            "a 1/√d logit spread of {spread:.2g} at initialization"
            "{learns:|, and no seed of the searched β learns the task}{outcome:words}",
            "searches": " (searched β {betas:list:.3g})",
            "closes": ", a gap the longer training closes",
            "open": ", a gap still open after the longer training",
        },
    ),
    "chuang-25000-samples": Claim(
        "string_reversal",
        "chuang2023scaling",
        "3",
        "To have a stable test accuracy above 95%, the training sample size needs to be "
        "increased from 15000 to 25000.",
        "With 1/√d_k, 15,000 training strings are not enough for a test token accuracy of 95 % "
        "on every seed, and 25,000 are. Chuang gives no training length, so one training-set "
        "size refutes the first half only if 1/√d reaches 95 % with at most 15,000 strings "
        "already after the short budget (one epoch), in every setup.",
        unreachable={Verdict.HOLDS: _TWO_SIZES, Verdict.CAVEAT: _TWO_SIZES},
        check="1/√d runs, test token accuracy (validation where the test strings were not "
        "scored); 'stable above 95%' = every seed learned; does not hold if so in every setup "
        "with at most 15,000 training strings after the short budget, whatever Chuang's "
        "unstated training length beyond it; not testable otherwise (one training-set size is "
        "trained, so the 25,000 half is never tested)",
        says={
            "fails": "With {n_train:,} training strings{fewer:, fewer than Chuang's 15,000|}, "
            "every seed of 1/√d learns the task in every setup within the short budget: it does "
            "not need 25,000 strings here, whatever the training length. "
            "{setups:details:setup} (token accuracy after {short} and {long} steps)",
            "late": "Every seed of 1/√d learns the task with the long budget in {learned:list}, "
            "not with the short one: whether {n_train:,} training strings are enough turns on "
            "the training length, which Chuang does not give. "
            "{setups:details:setup} (token accuracy after {short} and {long} steps)",
            "untestable": "With {n_train:,} training strings some seed of 1/√d falls short of "
            "learning the task in every setup; one training-set size cannot tell whether "
            "25,000 strings would lift it. "
            "{setups:details:setup} (token accuracy after {short} and {long} steps)",
            "more": "The chapter trains on {n_train:,} strings, more than Chuang's 15,000, so it "
            "cannot tell whether 15,000 would do. "
            "{setups:details:setup} (token accuracy after {short} and {long} steps)",
            "untrained": "1/√d was not trained in this run",
        },
        words={
            "setup": "{setup}: {short_acc} on the {short_strings} strings and {long_acc} on the "
            "{long_strings} strings"
        },
    ),
    "chuang-not-memorizing": Claim(
        "string_reversal",
        "chuang2023scaling",
        "3",
        "Furthermore, the model that achieved the above accuracy did not achieve it by "
        "memorizing the training examples. … However, if it was by memorizing, then the model "
        r"had to memorize $100^{20}$ strings with length 20 which greatly exceed the number of "
        r"parameters of the model (less than 8000).",
        "A model that learned the task reaches at least 95 % token accuracy on test strings "
        "drawn independently of the training strings (few or none of them seen in training), "
        "so its accuracy is not memorized; the count of possible strings is reported.",
        unreachable={
            Verdict.FAILS: "memorizing would show as training accuracy far above test accuracy, "
            "and the runs record accuracy on unseen strings only; a run that falls short on "
            "them learned nothing to explain"
        },
        check="test strings drawn independently of the training strings; holds if a method "
        "learns the task, on average over seeds, on strings not seen in training, not testable "
        "if none does (a model that learned nothing has no accuracy to explain); training "
        "accuracy is not recorded, so memorizing cannot be shown directly",
        says={
            "holds": "The best mean test token accuracy, {best}, is reached on test strings "
            "drawn apart from the training strings ({seen:share:test string} were training "
            "strings too); the model has {parameters:,} parameters, and there are {strings} "
            "strings{paper: (the paper counts 100²⁰, reading 'between 0 and 100' as 100 "
            "values; the book includes 100, and the argument stands either way)|}",
            "caveat": "The best mean test token accuracy is {best}, but {seen:share:test string} "
            "were training strings too, so part of it could be memorized; the model has "
            "{parameters:,} parameters, and there are {strings} strings{paper: (the paper "
            "counts 100²⁰, reading 'between 0 and 100' as 100 values; the book includes 100, "
            "and the argument stands either way)|}",
            "untestable": "No run learned the task (best mean test token accuracy {best}), so "
            "there is no accuracy to explain",
            "unmeasured": "No test token accuracy was measured in this run, so there is no "
            "accuracy to explain",
        },
    ),
    "chuang-96-half-data": Claim(
        "string_reversal",
        "chuang2023scaling",
        "4",
        "The empirical results in the previous section shows that with dynamic scaling factor "
        "being implemented, the model can reach an accuracy higher than 96% with about half of "
        "the training data compared to the fixed scaling factor introduced in the "
        "self-attention.",
        "The searched β (Chuang's dynamic factor, a constant from his search) needs about half "
        "the training strings 1/√d needs to exceed 96 % token accuracy. With one training-set "
        "size the rule can refute it only where, at both budgets and in every setup, every seed "
        "of 1/√d exceeds 96 % and no seed of the searched β does.",
        unreachable={Verdict.HOLDS: _TWO_SIZES, Verdict.CAVEAT: _TWO_SIZES},
        check="searched β (Chuang's search) against 1/√d at both budgets, test token accuracy "
        "(validation where the test strings were not scored), above Chuang's mark: every seed "
        "of 1/√d, some seed of the searched β ('can reach'); does not hold if at both budgets "
        "in every setup 1/√d exceeds it and the searched β does not, otherwise not testable "
        "(one training-set size); Chuang's own section 3 gives 15,000 vs 25,000 strings "
        "(ratio 0.6) and 95%, not half and 96%; the book's learned β is its own addition, not "
        "Chuang's dynamic factor",
        says={
            "fails": "At both budgets in every setup every seed of 1/√d exceeds Chuang's mark "
            "and no seed of the searched β does: with {n_train:,} training strings the searched "
            "β needs more data than 1/√d here, not half. {setups:details:setup}",
            "both": "Both exceed Chuang's mark with {n_train:,} training strings in "
            "{both:items:place}; whether the searched β would with half as many, the chapter "
            "cannot tell: a ratio of training-set sizes needs two sizes, and it trains one. "
            "{setups:details:setup}",
            "untestable": "A ratio of training-set sizes needs two sizes, and the chapter trains "
            "one ({n_train:,} training strings). {setups:details:setup}",
        },
        words={
            "setup": "{setup} after {budget} steps: 1/√d {fixed}, searched β {searched}, best "
            "seed {best}, on the {strings} strings",
            "place": "{setup} after {budget} steps",
        },
    ),
    "chuang-sigma-w-moving-factors": Claim(
        "string_reversal",
        "chuang2023scaling",
        "2",
        r"Since the training set is given, i.e. it is fixed, and so are $d_x$ and $d_k$ , "
        r"$\sigma_{W_q}$ and $\sigma_{W_k}$ are the actual moving factors.",
        "On the 1/√d runs at every evaluation: σ_Wq σ_Wk moves (leaves a factor 1.25 of its "
        "start) while σ_X stays within it, and the relaxed formula with the measured σ tracks "
        "the logit spread (within a factor 2 of its ratio at step 0). σ_X moving too is a "
        "caveat: the input of attention is learned, not Chuang's fixed training set.",
        check="1/√d runs, every evaluation, every seed; σ_X fixed = within a set factor of step "
        "0, σ_W moving = σ_Wq σ_Wk leaves that band; the relaxed formula (d_x σ_X² σ_Wq²)"
        "(d_x σ_X² σ_Wk²) d_k predicts a 1/√d logit spread of d_x σ_X² σ_Wq σ_Wk and tracks it "
        "if measured/predicted stays about its value at step 0; the spread is measured across "
        "keys, not Var(q·k) over independent draws",
        says={
            "holds": "In every setup σ_Wq σ_Wk moves while σ_X stays fixed, and the relaxed "
            "formula follows the logit spread. {setups:details:setup}",
            "caveat": "σ_Wq σ_Wk moves with the relaxed formula following the logit spread in "
            "{main:list}{alone:items:alone}{moved:items:moved}{missed:items:missed}. "
            "{setups:details:setup}",
            "fails": "In no setup does σ_Wq σ_Wk move with the relaxed formula following the "
            "logit spread{moved:items:moved}{missed:items:missed}. {setups:details:setup}",
            "untrained": "1/√d was not trained in this run",
        },
        words={
            "setup": "{setup}: σ_X moves by up to ×{x:.3g}, σ_Wq σ_Wk by up to ×{w:.3g}, and the "
            "relaxed formula's prediction of the logit spread drifts from the measured spread "
            "by up to ×{miss:.3g}",
            "alone": "; elsewhere ({others:list}) it does not",
            "moved": "; σ_X moves too in {where:list}: the input of attention is learned there, "
            "not the fixed training data of Chuang's premise",
            "missed": "; the formula misses the measured spread in {where:list}",
        },
    ),
    "chuang-assumptions-invalid-in-training": Claim(
        "string_reversal",
        "chuang2023scaling",
        "2",
        "However, since the initial point is random and unlikely to be the final point in the "
        "moduli space throughout the training mode, the assumption (ii) is not valid right "
        "after the training of the model that used self-attention function is initiated.",
        "A change from a start that meets (ii): the unit variance of the query and key entries "
        "(read through Chuang's d_x σ_X² σ_W², within a factor 2 of 1) holds at step 0 and "
        "fails from the first evaluation after it on. A setup where (ii) fails at step 0 "
        "cannot test it. (Whether (iii) and (iv) fall with (ii) is the claim 'without "
        "assumption (ii)'.)",
        check="1/√d runs at every evaluation (step 0 and every eval_every steps; steps 1 and 10 "
        "are not recorded); (ii) met = d_x σ_X² σ_Wq² and d_x σ_X² σ_Wk² both about 1; a setup "
        "where (ii) fails at step 0 does not meet Chuang's premise and cannot test the claim; "
        "the zero means of (iii) and the covariances of (iv) are not recorded, so (iii) and "
        "(iv) are read only through (ii), as Chuang derives them",
        says={
            "holds": "Training breaks (ii) from the first evaluation on in every setup. "
            "{setups:details:setup}",
            "caveat": "Not every setup shows training break (ii) from the first evaluation on"
            "{rests:items:rests}. {setups:details:setup}",
            "fails": "(ii) still holds at the end of training in some setup that meets it at "
            "step 0{rests:items:rests}. {setups:details:setup}",
            "untestable": "No setup meets (ii) at step 0, so no run starts from Chuang's "
            "premise, and whether training breaks (ii) cannot be tested. {setups:details:setup}",
        },
        words={
            "setup": "{setup}: (ii) {status:words}, with Var(q_ij), Var(k_ij) by the relaxed "
            "formula {q0:.3g}, {k0:.3g} at step 0 and {q1:.3g}, {k1:.3g} at step {step}, and a "
            "1/√d logit spread of {s0:.3g} → {s1:.3g}",
            "rests": ": (ii) is unmet already at step 0 in {unmet:list}, which cannot test the "
            "claim, and the verdict rests on {rest:list}",
            "unmet": "unmet already at step 0 (premise unmet)",
            "stays": "met at step 0 and still at the end",
            "breaks": "met at step 0 and unmet from the first evaluation after it on",
            "later": "met at step 0 but broken only later or not on every seed",
        },
    ),
    "chuang-perfect-accuracy": Claim(
        "string_reversal",
        "chuang2023scaling",
        "3",
        "Since a 100% accuracy is also achievable within the ensemble, and once achieved that "
        "100% accuracy the model can flip any input string with the same length and the range "
        "of the values of its each word.",
        "Some trained model reverses every test string without an error (whole-string "
        "accuracy 100 %); 'any input string' can be tried only on the test strings.",
        unreachable={
            Verdict.HOLDS: "'any input string' cannot be tried: a model that reverses every test "
            "string confirms it with that caveat at most",
            Verdict.FAILS: "'achievable' is an existence claim: runs that fall short cannot show "
            "that 100 % is out of reach",
        },
        check="whole-string accuracy (exact match) on all test strings, of every run scored "
        "there (1/√d and the searched β) at the budgets; holds with a caveat if some run "
        "reaches 100% (the claim's 'any input string' is tried only on the test strings); if "
        "none does, the existence claim is left undecided",
        says={
            "caveat": "Every test string is reversed without an error by {perfect:share:run} "
            "scored on them, at some budget (best whole-string accuracy {best:.3%}: {setup}, "
            "{method}, seed {seed}); only the test strings were tried, not constant or "
            "edge-case strings",
            "untestable": "No run reverses every test string: the best whole-string accuracy is "
            "{best:.3%} ({setup}, {method}, seed {seed}), and runs that fall short cannot show "
            "that 100 % is out of reach",
            "unmeasured": "No whole-string accuracy on the test strings was measured in this run",
        },
    ),
    "chuang-exponential-growth": Claim(
        "",
        "chuang2023scaling",
        "4",
        "Hence, the difference of the number of training samples needed between models that "
        "use dynamic or static scaling factor will be an exponential growth when the number of "
        "features that need to be learned grow.",
        "The gap in training data between a dynamic and a static factor grows exponentially "
        "with the number of features a model learns.",
        untestable="a speculation about large models such as LLMs; the number of features is "
        "not defined, and the book's model, like Chuang's, learns one task",
    ),
    "chuang-overflow-709": Claim(
        "softmax_saturation",
        "chuang2023scaling",
        "2",
        r"In practice, 709 is the upper bound of the exponent of the exponential function based "
        r"$e$ in lots of machines before the machines start to overflow.",
        "709 is the largest integer exponent x with exp(x) finite in double precision (and, "
        "for a plain 'holds', in every floating-point format measured).",
        Kind.IDENTITY,
        check="ln of the largest finite number of each floating-point format",
        says={
            "holds": "709 is the largest integer exponent in every format measured: exp "
            "overflows in {bounds:items:bound}",
            "caveat": "709 is the largest integer exponent in double precision only, not in "
            "{others:list}: exp overflows in {bounds:items:bound}",
            "fails": "709 is not the largest integer exponent in double precision: exp "
            "overflows in {bounds:items:bound}",
            "untestable": "no double-precision bound measured; exp overflows in "
            "{bounds:items:bound}",
        },
        words={"bound": "{format} above {bound:.2f}"},
    ),
    "chuang-scale-by-standard-deviation": Claim(
        "",
        "chuang2023scaling",
        "6",
        r"The authors in [2] want to scale the result of $QK^T$ using the standard deviation "
        r"of the scalar product, so $QK^T$ is multiplied by a factor",
        "Vaswani et al. chose 1/√d_k to divide q·k by its standard deviation.",
        untestable="an attribution of intent; Vaswani et al. give softmax saturation as the "
        "reason and use the variance to illustrate why the dot products get large",
    ),
    "chuang-rnn-challenging": Claim(
        "",
        "chuang2023scaling",
        "3",
        "Since the model needs to learn to swap the first and last elements in the string, it "
        "could be a challenging task for recurrent neural nets if the length of the input "
        "string is large.",
        "Reversing long strings is hard for recurrent networks.",
        untestable="the book trains no recurrent model, and the claim is hedged (could be)",
    ),
    "chuang-sigma-w-algorithm": Claim(
        "",
        "chuang2023scaling",
        "2",
        r"To solve this problem, the solution could be written as an algorithm that it measures "
        r"$\sigma_{W_q}$ and $\sigma_{W_k}$ and updates the scaling factor $\beta$ in after "
        r"each iteration or batch during the training and the best scaling factor $\beta$ that "
        r"is going to be used in the predicting mode could be determined by the best model "
        r"chosen from the ensemble of all trained models.",
        "An algorithm that measures σ_Wq and σ_Wk and updates β during training solves the "
        "problem.",
        untestable="the book does not implement this algorithm, and Chuang reports no result "
        "for it; the training chapter measures σ_Wq and σ_Wk but keeps β fixed",
    ),
    "chuang-compresses-data-and-time": Claim(
        "string_reversal",
        "chuang2023scaling",
        "3",
        "Thus, the above algorithms can not only compress the training set when the training "
        "samples are limited or rare, but also reduce the training time to reach the best "
        "accuracy.",
        "With the searched β less training reaches the best accuracy than with 1/√d: per "
        "setup, the searched β's steps to 95 % against 1/√d's (faster where every seed is "
        "faster, or the medians differ by more than a factor the ledger names), once counting "
        "the steps its search spent and once without. Faster counting them in every setup "
        "holds; faster only without them is a caveat, since a reader who must search pays "
        "them; faster nowhere does not hold.",
        check="steps to 95 % validation token accuracy over the chapter's seeds, with the "
        "training steps of the search that chose the searched β (first seed, first budget)",
        says={
            "holds": "counting its search's steps, the searched β reaches 95 % faster than "
            "1/√d in {with_cost:count:setup}: {setups:details:setup}",
            "without-cost": "the searched β reaches 95 % faster than 1/√d in {faster:number} of "
            "the {n:count:setup}, and in {with_cost:number} once its search's steps are "
            "counted: {setups:details:setup}",
            "fails": "the searched β reaches 95 % no faster than 1/√d in any of the "
            "{n:count:setup}, even without its search's steps: {setups:details:setup}",
            "untestable": "no setup trains both the searched β and 1/√d",
        },
        words={
            "setup": "{setup}: searched β {searched}, 1/√d {fixed}, its search {cost:,} steps",
        },
        part="compressing the training set, which needs a second training-set size",
    ),
    "chuang-softmax-columns": Claim(
        "softmax_saturation",
        "chuang2023scaling",
        "1",
        r"By definition of softmax, apply softmax to the matrix $\frac{QK^T}{\sqrt{d_k}}$ means "
        r"to apply Softmax function on each column of the matrix "
        r"$\left(\frac{QK^T}{\sqrt{d_k}}\right)_{N \times N}$",
        "His formula divides by a sum over the first index (the queries) for each fixed key, so "
        "each column of weights sums to 1; the attention of Vaswani et al., and the softmax 'on "
        "the last dimension' his own definition names (as numpy and PyTorch read it), make each "
        "row, one query's weights on the keys, sum to 1. Tested on a random logit matrix: his "
        "column formula against the softmax over the last dimension.",
        Kind.IDENTITY,
        unreachable={
            Verdict.HOLDS: "normalizing the columns is the softmax over the rows only for a "
            "matrix that cannot tell them apart (not testable); for any other it differs",
            Verdict.CAVEAT: "a softmax normalizes one axis or the other",
        },
        check="his formula (a sum over the first index i₁ for a fixed j) against the softmax "
        "over the last dimension (numpy, PyTorch; the attention of Vaswani et al., over the "
        "keys)",
        says={
            "fails": "normalizing each column is the softmax over the first dimension, the "
            "queries, not the attention over the keys nor his own 'last dimension': on a "
            "{rows} × {columns} matrix of random logits, the rows of his weights (one query's "
            "weights on the keys) sum to {row_sums:range:.2f}, and they differ from the softmax "
            "over the last dimension by up to {gap:.2f}",
            "untestable": "this {rows} × {columns} matrix cannot tell the two apart: his column "
            "formula and the softmax over the last dimension differ by at most {gap:.2f}, and "
            "the rows of his weights sum to {row_sums:range:.2f}",
        },
    ),
    "chuang-temperature-sd": Claim(
        "why_sqrt_d",
        "chuang2023scaling",
        "1",
        r"In self-attention, this $\beta$ is $\frac{1}{\sqrt{d_k}}$ , and $T$ is the standard "
        r"deviation of the scalar product $\sqrt{d_k}$ .",
        "With β = 1/T (his Definition 1), T = √d_k is the standard deviation of q·k under the "
        "footnote's assumptions: T² = d_k is Var(q·k), derived for a symbolic d and simulated "
        "at each d.",
        Kind.IDENTITY,
        unreachable={Verdict.CAVEAT: EXACT},
        check=REPORTED_SIMULATION,
        says={
            "holds": "sd(q·k) = √d for every d: derived minus claimed simplifies to zero, and "
            "the simulation is the one reported for the footnote's Var(q·k) = d, since T² = d "
            "is that variance",
            "fails": "the derivation for a symbolic d misses sd(q·k) = √d: derived minus claimed "
            "is {residual}",
            "untestable": "the derivation gives sd(q·k) = √d for a symbolic d, but the "
            "footnote's simulation of Var(q·k) = d = T² lies {worst:.2f} standard errors from "
            "its closed form: the two routes disagree, so no verdict",
        },
    ),
    "chuang-iii-iv-based-on-ii": Claim(
        "beyond_initialization",
        "chuang2023scaling",
        "2",
        r"Since the way query and key matrices are defined, i.e. $Q = XW_q$ and $K = XW_k$ , "
        r"assumption (iii) and (iv) are based on assumption (ii).",
        "(iii) and (iv) follow from (ii) once Q = XW_q and K = XW_k: every initialization "
        "that meets (ii) also gives zero means (iii) and zero covariances (iv). (iii)'s own "
        "unit variance is (ii) restated, so what is tested is what (iii) and (iv) add. One "
        "way of drawing W_q and W_k that meets (ii) and breaks (iv) refutes it, and the "
        "chapter's table includes one: tied weights, W_k = W_q. Whether (iii) and (iv) fail "
        "without (ii), the converse, is the next row's question. No training is needed.",
        unreachable={
            Verdict.CAVEAT: "either every initialization that meets (ii) gives the zero means "
            "and (iv), or one does not"
        },
        check=_II_CHECK,
        says={
            "holds": "every initializer that meets (ii) ({kept:list}) also gives the zero means "
            "and (iv): {initializers:details:init}",
            "fails": "{broken:list} meet (ii) (unit variance) but break the zero means or "
            "(iv) (zero covariances): {initializers:details:init}",
            "untestable": "no initializer meets (ii), so none shows what follows from it: "
            "{initializers:details:init}",
        },
        words=_II_WORDS,
    ),
    "chuang-without-ii-invalid": Claim(
        "beyond_initialization",
        "chuang2023scaling",
        "2",
        "Without assumption (ii), assumption (iii) and (iv) are invalid throughout the training "
        "and predicting modes.",
        "Where (ii) fails, (iii) and (iv) fail too. (iii)'s unit variance is (ii) itself, so it "
        "falls with it by definition; the test is (iv): an initialization whose Q and K entries "
        "miss unit variance while their covariances vanish refutes it. The initializations of "
        "the chapter's table suffice; no training is needed.",
        unreachable={
            Verdict.CAVEAT: "(iii)'s unit variance falls with (ii) by definition, so the claim "
            "turns on (iv) alone, which survives without (ii) or does not"
        },
        check=_II_CHECK,
        says={
            "holds": "without (ii), (iv) fails too, for {lost:list}",
            "fails": "without (ii), (iv) still holds, for {kept:list}",
            "fails-mixed": "without (ii), (iv) still holds for {kept:list} and fails for "
            "{lost:list}",
            "untestable": "every initializer meets (ii), so none shows what happens without it",
        },
    ),
    "chuang-first-assumption-fixed": Claim(
        "",
        "chuang2023scaling",
        "2",
        "Within the four assumptions, the first assumption is usually fixed when self-attention "
        "is considered to be applied.",
        "The shapes of W_q, W_k and W_v (assumption (i)) are set by the architecture.",
        untestable="a remark on usage: the shapes of the projections are chosen with the "
        "architecture, so there is nothing to measure",
    ),
    "chuang-citation-counts": Claim(
        "",
        "chuang2023scaling",
        "1",
        "A statistics uses data from Google Scholar[?], shows that the paper written by Vaswani "
        "et. al.[2] was the fourth most cited paper in artificial intelligence upto 2020. In "
        "2023, [2] becomes the second most cited paper in that original list.",
        "Citation ranks of Vaswani et al.",
        untestable="citation statistics are outside what the book computes (and it works "
        "offline); Chuang's reference for them is missing ('[?]')",
    ),
    "chuang-almost-all-llms": Claim(
        "",
        "chuang2023scaling",
        "1",
        "Self-attention mechanism has been implemented into almost all most recent LLM models.",
        "Nearly every recent large language model uses self-attention.",
        untestable="a survey of models the book does not and cannot inspect",
    ),
    "chuang-issue-in-recent-publications": Claim(
        "",
        "chuang2023scaling",
        "1",
        "However, based on authors' knowledge we have not seen any papers have an mathematical "
        "and statistical analysis on the question raised and answered in this paper. The issue "
        "pointed out by this paper can still be found in the most recent publications that "
        "implemented self-attention in their models.",
        "No earlier paper analyses the question, and recent models still use a fixed 1/√d_k.",
        untestable="a claim about the literature, which the book does not survey",
    ),
}
