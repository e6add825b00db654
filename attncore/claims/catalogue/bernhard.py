"""The claims of Bernhard (2023), dividing by the sum of key lengths.

Each claim: its words, the book's reading and the sentences that say its verdict."""

from __future__ import annotations

from attncore.claims.catalogue.chiang import (
    FIRST_CHECK,
    FIRST_UNLEARNED,
    FIRST_UNTESTABLE,
    FIRST_WORDS,
)
from attncore.claims.catalogue.reasons import EXACT, FIRST_TASK, RUNS
from attncore.claims.claim import ANY, Claim, Kind, Verdict

_FORMULAS = (
    "the counts follow from the formulas alone: the mean key length always takes one division "
    "more whatever n, the other two a number of operations that grows with n"
)

_DRAWS = "{draws} draws per configuration{few: (too few for stable counts)|}"
"""How many draws each configuration of a paired comparison had (the rescalings' rules)."""

_LESS = (
    "{better}'s W₁ is clearly below {worse}'s in {wins:share:configuration}{missed:items:missed}: "
    "{w_a:range:.3f} against {w_b:range:.3f}; its selectivity is {ratio:range:.2g} times the "
    "other's, its effective keys / n {share_min:.3f} or more (nearly uniform in "
    "{uniform:count:configuration}: reported, not held against the claim)"
)
"""What a rescaling that distorts less measured (the rescalings' distortion rules)."""

_LESS_WORDS = {
    "missed": " (not in {places:items:place})",
    "place": "{family} at d = {d}, n = {n}",
}

_SCALED = (
    "1/k_total with every query multiplied by {scales:range:g}, keys fixed: W₁ {w:range:.3f} "
    "({rises:a clear rise|no clear rise}, {down:count:step} clearly down)"
)
"""What 1/k_total's distortion did as the queries grew (Bernhard's section 3)."""

_K_TOTAL = (
    "1/k_total scores {k_total:ci}, {gap:ci:+.3f} against 1/√d; its factor on q·k fell by a "
    "factor of {fall:.0f}, from {factor_short:.3g} at {train_length:,} bits to "
    "{factor_long:.3g}, as the keys grew by a factor of {key_growth:.0f}, from {keys_short} "
    "to {keys_long}"
)
"""The numbers of every verdict on 1/k_total at long strings."""

_ACROSS_N = (
    "mean largest probability {top:range:.3g} ({top_over:range:.3g} times 1/n), mean ‖J‖_F "
    "{norm:range:.3g} ({norm_over:range:.3g} times that of uniform attention), entropy / ln n "
    "{entropy:range:.3g}"
)
"""The measures at the smallest and the largest n of every verdict on Bernhard's point."""


CLAIMS: dict[str, Claim] = {
    "bernhard-softmax-depends-on-n": Claim(
        "softmax_saturation",
        "bernhard2023alternatives",
        "2",
        r"notice that it is impossible to apply softmax without knowing how many keys are in "
        r"$\mathcal{K}$ . As such, we might not be able to avoid all of the softmax-related "
        r"difficulties by adjusting the scalar attention function, since this function has "
        r"nothing to do with $\mathcal{K}$ , only with individual keys.",
        "At one spread of the logits (1, where 1/√d puts standard normal q and k), what the "
        "softmax does changes with the number of keys n: the largest probability or the "
        "Jacobian norm changes by a factor of at least 2 across n, relative to uniform "
        "attention.",
        check="rows of iid N(0, 1) logits (the spread 1/√d gives standard normal q and k) for "
        "several n; 'materially' read as a change by a factor, beyond two standard errors "
        "(book's reading)",
        says={
            "holds": "from n = {first} to n = {last} the rows change materially even relative "
            "to uniform attention: " + _ACROSS_N,
            "caveat": "from n = {first} to n = {last} the rows change materially only as "
            "uniform attention does, and little relative to it: " + _ACROSS_N,
            "fails": "from n = {first} to n = {last} neither the largest probability nor the "
            "Jacobian norm changes materially: " + _ACROSS_N,
            "untestable": "only n = {sizes:list} measured",
        },
    ),
    "bernhard-other-reasons-large-dots": Claim(
        "why_sqrt_d",
        "bernhard2023alternatives",
        "2",
        r"The choice to divide by $\sqrt{d}$ was based on the absolute values of the query and "
        r"key dot products growing too large because of their dimension, but there are other "
        r"reasons besides the dimension why the absolute value of these dot products might "
        r"grow large. It would be good to compensate for those too.",
        "At a fixed d, non-zero means, larger variances, queries aligned with their keys and "
        "grown projection weights each raise the mean square of q·k/√d above its value 1 in "
        "the footnote's setting (by more than 10 %), by closed form and simulation.",
        check="closed forms of the mean and variance of q·k/√d at a fixed d, each simulated",
        says={
            "holds": "every reason tried raises the mean square of q·k/√d above its value 1 in "
            "the footnote's setting: {moments:details:moment}",
            "caveat": "the mean square of q·k/√d, 1 in the footnote's setting, grows with some "
            "reasons but not with {flat:list}: {moments:details:moment}",
            "fails": "no reason tried grows the mean square of q·k/√d, 1 in the footnote's "
            "setting: {moments:details:moment}",
            "untestable": "a simulation disagrees with its closed form, so no verdict; the mean "
            "square of q·k/√d, 1 in the footnote's setting, is {moments:items:moment}",
            "no-reason": "no reason was tried",
        },
        words={"moment": "{value:,.{digits}g} with {reason}"},
    ),
    "bernhard-cauchy-schwarz": Claim(
        "derivations",
        "bernhard2023alternatives",
        "3",
        r"Some of the intuition behind this is that, by the Cauchy-Schwarz inequality, … "
        r"$$\frac{|k_i \cdot q|}{k_{total}} \leq \frac{\|k_i\|}{k_{total}} \|q\| \leq \|q\|.$$",
        "|k_i·q|/k_total ≤ (‖k_i‖/k_total)‖q‖ ≤ ‖q‖: a theorem, checked on simulated logits of "
        "several laws.",
        Kind.IDENTITY,
        unreachable={Verdict.CAVEAT: EXACT},
        check="symbolic (Cauchy-Schwarz) and simulated logits per law, d = {d}",
        says={
            "holds": "no simulated ratio |q·k_i|/(k_total‖q‖) exceeds 1: {laws:details:law} "
            "(heuristic size √(2/(πd))/n = {typical:.4f})",
            "fails": "a simulated ratio |q·k_i|/(k_total‖q‖) exceeds 1: {laws:details:law} "
            "(heuristic size √(2/(πd))/n = {typical:.4f})",
            "untestable": "no law was simulated",
        },
        words={"law": "{law}: largest ratio {largest:.3f}, mean {mean:.4f}"},
    ),
    "bernhard-n-sqrt-d-normal": Claim(
        "derivations",
        "bernhard2023alternatives",
        "5",
        r"It is worth noting that dividing by $n\sqrt{d}$ seems to exhibit similar behavior to "
        r"dividing by $k_{total}$ for independent standard normally distributed key and query "
        r"components.",
        "For standard normal keys k_total/(n√d) is within 5 % of 1 (the Gamma-function "
        "closed form of E‖k‖, and simulated key sets), at every d from Bernhard's smallest, 16.",
        check="Gamma-function closed form of E‖k‖ and simulated key sets",
        says={
            "holds": "k_total / (n√d) for n = {n} stays close to 1 at every d: "
            "{ratios:details:ratio}; largest |z| against the Gamma-function closed form "
            "{worst:.1f}",
            "caveat": "k_total / (n√d) for n = {n} stays close to 1 from Bernhard's smallest d "
            "on, and parts from it below, at d = {off:list}: {ratios:details:ratio}; largest |z| "
            "against the Gamma-function closed form {worst:.1f}",
            "fails": "k_total / (n√d) for n = {n} parts from 1 at Bernhard's smallest d or above: "
            "{ratios:details:ratio}; largest |z| against the Gamma-function closed form "
            "{worst:.1f}",
            "untestable": "the simulation and the Gamma-function closed form disagree (largest "
            "|z| {worst:.1f}), so no verdict; k_total / (n√d) for n = {n}: {ratios:items:ratio}",
        },
        words={"ratio": "{ratio:.3f} at d = {d}"},
    ),
    "bernhard-fig1-unscaled-distorts": Claim(
        "bernhard_figures",
        "bernhard2023alternatives",
        "2, Figure 1(b)",
        "Even with such a small key dimension as 16, Figure 1(b) shows that applying softmax "
        "without scaling severely distorts the shape of the distribution of the original dot "
        "products. Because the shape after applying softmax is weighted heavily near 0 and has "
        "a pronounced right skew, …",
        "At d = 16, n = 32, the unscaled softmax's first component, over many independent draws "
        "of Figure 1: a skewness change above 1 (pronounced right skew), a median weight below "
        "a tenth of the uniform 1/n (heavily near 0), a KS distance from the dot products above "
        "its 5 % critical value (severe distortion), each clearly on average and all three in "
        "at least 95 % of single draws.",
        says={
            "holds": "all three signs of a severe distortion, clearly on average and together in "
            "{passed_pct:.0f} % of single draws: skewness change {skew:pm:2}, median weight "
            "{weight:pm:4} in units of 1/n, KS distance {ks:pm:3} (mean ± standard error over "
            "{draws} draws)",
            "caveat": "not clearly past its mark on average: {borderline:words}, and no sign on "
            "the wrong side; all three together in {passed_pct:.0f} % of single draws"
            "{few: (too few)|}; skewness change {skew:pm:2}, median weight {weight:pm:4} in "
            "units of 1/n, KS distance {ks:pm:3} (mean ± standard error over {draws} draws)",
            "single-draws": "all three signs clearly on average, but together in only "
            "{passed_pct:.0f} % of single draws: skewness change {skew:pm:2}, median weight "
            "{weight:pm:4} in units of 1/n, KS distance {ks:pm:3} (mean ± standard error over "
            "{draws} draws)",
            "fails": "on the wrong side of its mark on average: {against:words}; all three signs "
            "together in {passed_pct:.0f} % of single draws; skewness change {skew:pm:2}, "
            "median weight {weight:pm:4} in units of 1/n, KS distance {ks:pm:3} (mean ± "
            "standard error over {draws} draws)",
            "one-draw": "{draws:count:draw}: a standard error needs at least two",
            "no-value": "some draws have no value: nothing to judge",
        },
        check="the {sample} samples of panel {panel} over independent draws: the mean skewness "
        "change, median weight and KS distance from the raw dot products (its 5 % critical "
        "value {ks_critical:.3f}), each against its mark by a t test over the draws, and the "
        "share of single draws that show all three signs",
        words={
            "skew": "the skewness change",
            "weight": "the median weight",
            "ks": "the KS distance",
        },
    ),
    "bernhard-fig1-sqrt-d-helps": Claim(
        "bernhard_figures",
        "bernhard2023alternatives",
        "2, Figure 1(c)",
        r"Although Figure 1(c) shows a mild right skew that was not present in the distribution "
        r"before softmax was applied, from the plot it is clear that dividing the dot products "
        r"by $\sqrt{d}$ before applying softmax did indeed help preserve the general shape of "
        r"the distribution compared to not scaling at all.",
        "Paired over draws of Figure 1: the W₁ and KS distortions with 1/√d clearly below those "
        "without scaling ('help preserve'), its skewness change clearly above 0 ('right skew') "
        "and clearly below the unscaled one ('mild', against panel (b)'s 'pronounced'); 'it is "
        "clear from the plot' read as: a single draw (one figure) shows the improvement at "
        "least 95 % of the time.",
        says={
            "holds": "less distorted than without scaling, on both distances in {both_pct:.0f} % "
            "of single draws, with a right skew clearly there and clearly milder: W₁ lower by "
            "{w:pm:3} (down to {w_left_pct:.0f} %), KS lower by {ks:pm:3}; skewness change "
            "{skew:pm:2}, lower by {milder:pm:2} (down to {skew_left_pct:.0f} %); mean ± "
            "standard error over {draws} draws",
            "caveat": "less distorted than without scaling and with a clearly milder skew, but no "
            "right skew clearly left; both distances lower in {both_pct:.0f} % of single draws"
            "{few: (too few)|}: W₁ lower by {w:pm:3} (down to {w_left_pct:.0f} %), KS lower by "
            "{ks:pm:3}; skewness change {skew:pm:2}, lower by {milder:pm:2} (down to "
            "{skew_left_pct:.0f} %); mean ± standard error over {draws} draws",
            "single-draws": "less distorted than without scaling, with a milder right skew "
            "clearly there, but both distances lower in only {both_pct:.0f} % of single draws: "
            "W₁ lower by {w:pm:3} (down to {w_left_pct:.0f} %), KS lower by {ks:pm:3}; skewness "
            "change {skew:pm:2}, lower by {milder:pm:2} (down to {skew_left_pct:.0f} %); mean ± "
            "standard error over {draws} draws",
            "fails": "{failing:words}; both distances lower in {both_pct:.0f} % of single draws: "
            "W₁ lower by {w:pm:3} (down to {w_left_pct:.0f} %), KS lower by {ks:pm:3}; skewness "
            "change {skew:pm:2}, lower by {milder:pm:2} (down to {skew_left_pct:.0f} %); mean ± "
            "standard error over {draws} draws",
            "one-draw": "{draws:count:draw}: a standard error needs at least two",
            "no-value": "some draws have no value: nothing to judge",
        },
        check="paired over draws of the {sample} samples, panel {scaled} against panel "
        "{unscaled}: the W₁ and KS distortions lower ('helps'), the skewness change lower "
        "('mild', read against the 'pronounced' skew without scaling) and above 0 ('right "
        "skew'), each by a t test over the draws; and the share of single draws less distorted "
        "on both distances",
        words={
            "distortion": "the distortion is not clearly smaller than without scaling",
            "skew": "the skew is not clearly milder than without scaling",
        },
    ),
    "bernhard-fig2-k-total-better": Claim(
        "bernhard_figures",
        "bernhard2023alternatives",
        "4, Figure 2",
        r"In these plots, it is apparent that pre-dividing by $k_{total}$ before applying "
        r"softmax preserves the shape of the distribution much better than pre-dividing by "
        r"$\sqrt{d}$.",
        "Paired over draws of Figure 2 (d = 256, n = 32): the W₁ and KS distortions with "
        "1/k_total clearly below those with 1/√d ('better'), their mean ratio clearly below 0.5 "
        "on both ('much better'); 'it is apparent in these plots' read as: a single draw shows "
        "it at least 95 % of the time. That the rows of attention are nearly uniform is "
        "reported, not held against the claim, which is about the shape.",
        says={
            "holds": "much less distorted than with 1/√d, on both distances in {both_pct:.0f} % "
            "of single draws{uniform:, with nearly uniform rows (reported, not part of the "
            "claim)|}: W₁ lower by {w:pm:3}, KS lower by {ks:pm:3}; ratios to 1/√d's distortion: "
            "W₁ {ratio_w:pm:3}, KS {ratio_ks:pm:3}; mean normalized entropy of the rows "
            "{entropy:pm:5}; mean ± standard error over {draws} draws",
            "caveat": "less distorted than with 1/√d, but the ratios are not clearly as small as "
            "'much' asks; both distances lower in {both_pct:.0f} % of single draws"
            "{few: (too few)|}{uniform:; nearly uniform rows (reported, not part of the claim)|}"
            ": W₁ lower by {w:pm:3}, KS lower by {ks:pm:3}; ratios to 1/√d's distortion: W₁ "
            "{ratio_w:pm:3}, KS {ratio_ks:pm:3}; mean normalized entropy of the rows "
            "{entropy:pm:5}; mean ± standard error over {draws} draws",
            "single-draws": "much less distorted than with 1/√d on average, but on both "
            "distances in only {both_pct:.0f} % of single draws{uniform:, with nearly uniform "
            "rows (reported, not part of the claim)|}: W₁ lower by {w:pm:3}, KS lower by "
            "{ks:pm:3}; ratios to 1/√d's distortion: W₁ {ratio_w:pm:3}, KS {ratio_ks:pm:3}; mean "
            "normalized entropy of the rows {entropy:pm:5}; mean ± standard error over {draws} "
            "draws",
            "fails": "not clearly less distorted than with 1/√d on both distances; both lower in "
            "{both_pct:.0f} % of single draws: W₁ lower by {w:pm:3}, KS lower by {ks:pm:3}; "
            "ratios to 1/√d's distortion: W₁ {ratio_w:pm:3}, KS {ratio_ks:pm:3}; mean "
            "normalized entropy of the rows {entropy:pm:5}; mean ± standard error over {draws} "
            "draws",
            "one-draw": "{draws:count:draw}: a standard error needs at least two",
            "no-value": "some draws have no value: nothing to judge",
        },
        catch="{uniform:attention rows nearly uniform|}",
        check="paired over draws of the {sample} samples, panel {other} against panel {base}: "
        "the W₁ and KS distortions lower ('better') and their mean per-draw ratio small on both "
        "distances ('much better', the book's reading), each by a t test over the draws; the "
        "share of single draws better on both distances; nearly uniform rows (mean normalized "
        "entropy at least {uniform_entropy:g}) are reported, not held against a claim about "
        "shape",
    ),
    "bernhard-other-components-similar": Claim(
        "bernhard_figures",
        "bernhard2023alternatives",
        "2; 4",
        "By symmetry, the other components should look similar, and this approach avoids any "
        "issues with displaying (in the same kernel density estimate plot) multiple components "
        "of the rescaled vector attention, which lack independence.",
        "Component 1 has the law of every other component (mean, sd and skewness over draws, "
        "paired; Bonferroni-corrected t bands); within one draw, which is what one figure shows, "
        "no more components differ from component 1 than chance makes (KS at 5 %).",
        says={
            "holds": "key 1's component does not differ from the others in law, and within a "
            "draw not clearly more components differ from it than chance makes. "
            "{panels:details:panel} (per panel, the share of the other components beyond the "
            "KS critical value and the rank correlation of their sd with the length of their "
            "key; {draws} draws of {keys} keys)",
            "caveat": "key 1's component does not differ from the others in law, but within a "
            "draw clearly more components differ from it than chance makes in {differing:list}. "
            "{panels:details:panel} (per panel, the share of the other components beyond the "
            "KS critical value and the rank correlation of their sd with the length of their "
            "key; {draws} draws of {keys} keys)",
            "fails": "key 1's component differs from the others in law: {broken:items:broken}. "
            "{panels:details:panel} (per panel, the share of the other components beyond the "
            "KS critical value and the rank correlation of their sd with the length of their "
            "key; {draws} draws of {keys} keys)",
            "untestable": "{draws:count:draw} of {keys:count:key}: too few to compare",
        },
        check="every key's component over the queries against key 1's: in law over draws "
        "(paired differences of mean, sd and skewness, Bonferroni-corrected Student t bands) "
        "and within a draw (share of KS distances above the critical value)",
        words={
            "panel": "{panel} {share:.0f} % ± {share_se:.0f} % and {correlation:.2f}",
            "broken": "{panel} {statistic} ({mean:.3g} ± {se:.2g})",
        },
    ),
    "bernhard-other-moments": Claim(
        "k_total_alternatives",
        "bernhard2023alternatives",
        "4",
        r"Further experimentation readily shows that when normal distribution means and "
        r"variances change (and even more so when distribution families change), pre-dividing "
        r"by $\sqrt{d}$ leads to greater distortions of the distribution shape than "
        r"pre-dividing by $k_{total}$ .",
        "With normal components of shifted mean or wider variance, at every (d, n) of the "
        "family comparison: 1/k_total's W₁ clearly below 1/√d's in every configuration "
        "(paired over draws, Holm-corrected over the configurations). That 1/k_total's "
        "attention is nearly uniform is reported, not held against a claim about distortion.",
        says={ANY: f"{_LESS}; {_DRAWS}"},
        words=_LESS_WORDS,
    ),
    "bernhard-other-families": Claim(
        "k_total_alternatives",
        "bernhard2023alternatives",
        "4",
        r"(and even more so when distribution families change), pre-dividing by $\sqrt{d}$ "
        r"leads to greater distortions of the distribution shape than pre-dividing by "
        r"$k_{total}$ .",
        "For other families (uniform, Laplace, Student t, correlated, projected): 1/k_total's "
        "W₁ clearly below 1/√d's in every configuration (Holm-corrected), and 'even more so': "
        "the gap clearly larger than for standard normal components at the same (d, n).",
        says={
            ANY: f"{_LESS}; the gap is clearly larger than for N(0, 1) in "
            "{more:share:configuration}{not_more:items:not_more}; " + _DRAWS
        },
        words={**_LESS_WORDS, "not_more": " (not everywhere for {families:list})"},
    ),
    "bernhard-d-n-range": Claim(
        "k_total_alternatives",
        "bernhard2023alternatives",
        "4",
        r"Also, these patterns persist even when $d$ and $n$ vary over a wide range.",
        "On the standard normal grid of d and n, 1/k_total's W₁ is clearly below 1/√d's in "
        "every configuration (paired over draws, Holm-corrected over the grid).",
        says={ANY: f"{_LESS}; {_DRAWS}"},
        words=_LESS_WORDS,
    ),
    "bernhard-section5-worse": Claim(
        "k_total_alternatives",
        "bernhard2023alternatives",
        "5",
        r"dividing by $\sum_{i=1}^n \|k_i\|/n$ , … dividing by "
        r"$\sqrt{\sum_{i=1}^n \|k_i\|^2}$ , … more generally, dividing by "
        r"$(\sum_{i=1}^n \|k_i\|^p)^{1/p}$ . … in the author’s explorations, none of them "
        r"seemed to perform as well as dividing by $k_{total}$ .",
        "'Perform' read in Bernhard's measure, distortion of the shape: each alternative's W₁ "
        "clearly above 1/k_total's in every configuration (every family and setting, and the "
        "grid; Holm-corrected). Every alternative is a larger factor than 1/k_total (a norm of "
        "the key lengths below their 1-norm), which the measured text reports as the reason.",
        says={
            ANY: "{alternatives:items:alternative}; the alternatives are clearly more selective "
            "than 1/k_total in {selective:share:comparison}: each is a larger factor (a norm of "
            "the key lengths below their sum), a point further along the same curve; " + _DRAWS
        },
        words={
            "alternative": "{label}'s W₁ is clearly above 1/k_total's in {won} of "
            "{configurations} configurations (median W₁ ratio {w_ratio:.1f}, median "
            "selectivity ratio {s_ratio:.0f})"
        },
    ),
    "bernhard-n-sqrt-d-other": Claim(
        "k_total_alternatives",
        "bernhard2023alternatives",
        "5",
        r"As might be expected though, dividing by $n\sqrt{d}$ doesn’t appear to behave as "
        r"well for distributions other than standard normal.",
        "For every family other than the standard normal, 1/(n√d)'s W₁ is above 1/k_total's "
        "clearly (Holm-corrected tests) and by more than 10 % of 1/k_total's W₁ in every "
        "configuration.",
        says={
            ANY: "settings where 1/(n√d) is worse, the same, better or unclear against "
            "1/k_total: {families:items:family}; " + _DRAWS
        },
        words={"family": "{family} {worse}/{same}/{better}/{unclear} (factor ratio {ratio:.2f})"},
    ),
    "bernhard-sqrt-d-alleviates-vanishing": Claim(
        "every_rescaling",
        "bernhard2023alternatives",
        "2",
        "Correspondingly, this method helps alleviate the vanishing gradient issue with softmax "
        "(as has also been demonstrated time and again in its widespread use).",
        "In Bernhard's section 6 sense (components near 0 or 1): 1/√d has clearly fewer first "
        "components near 0 or 1 than no scaling, and a clearly larger Jacobian norm, in every "
        "configuration of the standard normal grid (Holm-corrected). 'Demonstrated time and "
        "again in its widespread use' is not tested.",
        says={
            ANY: "1/√d against no scaling, paired over draws: clearly fewer first components "
            "near 0 or 1 in {fewer} (clearly more in {more}) and a clearly larger Jacobian norm "
            "in {larger} of {configurations} configurations (both in {both}); share near 0 or 1 "
            "{extreme_a:range:.3g} against {extreme_b:range:.3g}, Jacobian norm "
            "{jacobian_a:range:.3g} against {jacobian_b:range:.3g}; " + _DRAWS
        },
        check="{setting}, and 'demonstrated time and again in its widespread use' is not testable "
        "here",
    ),
    "bernhard-small-logits-little-distortion": Claim(
        "k_total_alternatives",
        "bernhard2023alternatives",
        "3",
        "But the previous inequality shows that as long as the lengths of the queries don’t get "
        "too large, then the relative sizes of the components of the vectors to which softmax "
        "is applied won’t be distorted too much.",
        "Under 1/k_total, with the keys fixed and every query multiplied by a factor, W₁ rises "
        "with the query length (it is the query length that controls the distortion), and "
        "reaches 1/√d's only for queries more than 4 times longer than drawn ('too large' is "
        "not defined: the book's 'moderate'). Scales that stay too small for W₁ to rise, or a "
        "grid too coarse to place the crossing against 'moderate', cannot test it.",
        says={
            "never": _SCALED + "; it stays clearly below 1/√d's W₁ on the same draws",
            "too-small": _SCALED + "; it stays clearly below 1/√d's W₁ on the same draws: "
            "the scales measured stay too small for the distortion to rise",
            "at-once": _SCALED + "; it reaches 1/√d's W₁ on the same draws already at the "
            "smallest scale",
            "between": _SCALED + "; it reaches 1/√d's W₁ on the same draws between queries "
            "{before:g} and {crossing:g} times longer",
            "coarse": _SCALED + "; it reaches 1/√d's W₁ on the same draws between queries "
            "{before:g} and {crossing:g} times longer: the grid cannot tell whether that is "
            "within the book's 'moderate'",
        },
        check="queries scaled, keys of the same draws fixed ({main})",
    ),
    "bernhard-prescaled-softmax-same": Claim(
        "every_rescaling",
        "bernhard2023alternatives",
        "2",
        r"This minor shift in perspective is unimportant for using the “Attention” function "
        r"directly as formulated in “Attention Is All You Need” [1].",
        "softmax(x/√d) of the raw dot products equals the engine's 1/√d attention (queries "
        "scaled before the product) to rounding.",
        Kind.IDENTITY,
        unreachable={Verdict.CAVEAT: EXACT, Verdict.UNTESTABLE: RUNS},
        says={
            ANY: "softmax(QKᵀ/√d) on the raw dot products and the engine's 1/√d attention "
            "differ by {gap:.1e} at most"
        },
        check="one draw at the main setting ({main})",
    ),
    "bernhard-distortion-signals-vanishing": Claim(
        "every_rescaling",
        "bernhard2023alternatives",
        "6",
        "Vanishing gradients arise when individual components resulting from applying softmax "
        "approach 0 or 1, and this issue can be seen in the distortion of the shapes of the "
        "distributions of the vector attention components.",
        "Along the curve of constant factors, wherever W₁ moves clearly the share of first "
        "components near 0 or 1 does not move the other way, and the Jacobian norm does not "
        "move the same way; a caveat where only the Jacobian breaks this, before its peak.",
        says={
            ANY: "along {factors} constant factors, smallest to largest, W₁ changes clearly on "
            "{moved:share:step} between them; on {against:number} of these the share of first "
            "components near 0 or 1 moves the other way, and on {with_w:number} the softmax "
            "Jacobian norm moves the same way as W₁, {late:number} of them after the "
            "Jacobian's peak ({peak:.3f}, at factor {peak_at})"
        },
        check="consecutive constant factors f/√d, paired over draws ({main})",
    ),
    "bernhard-conclusion-k-total-better": Claim(
        "k_total_alternatives",
        "bernhard2023alternatives",
        "6",
        "Dividing by the square root of the key dimension alleviates this distortion well, "
        "but, judging from simulations, in many situations dividing by the sum of the key "
        "lengths appears to preserve the shape of the distribution even better.",
        "Over every configuration: 1/√d's W₁ clearly below no scaling's, and 1/k_total's "
        "clearly below 1/√d's, each in at least half of the configurations ('many'; "
        "Holm-corrected counts).",
        says={
            ANY: "W₁ clearly lower, paired: 1/√d than no scaling in {sqrt_wins} of {sqrt_of} "
            "configurations, 1/k_total than 1/√d in {k_wins} of {k_of}; clearly higher in "
            "{sqrt_losses} and {k_losses}; where 1/k_total wins, its attention is nearly "
            "uniform in {uniform}; " + _DRAWS
        },
        check="{every}",
    ),
    "bernhard-abstract-more-effective": Claim(
        "k_total_alternatives",
        "bernhard2023alternatives",
        "Abstract",
        "We use simulated keys and queries to show that in many situations this appears to be "
        "more effective at avoiding regions where applying softmax leads to vanishing "
        "gradients.",
        "'This' is dividing by the sum of the key lengths. Where 1/√d has saturated rows or "
        "first components near 0 or 1, 1/k_total has clearly fewer of either and more of "
        "neither, in at least half of those configurations ('many'; Holm-corrected), at no "
        "price of a median gradient reaching the query below half of 1/√d's. Clearly more in "
        "at least half refutes it; fewer clear wins and losses than that leave it undecided.",
        says={
            ANY: "1/k_total has clearly fewer saturated rows or first components near 0 or 1 "
            "than 1/√d (and clearly more of neither) in {better} of the {present} "
            "configurations where 1/√d has any ({share:.0%}), clearly more in {worse}; the "
            "price: the median gradient reaching the query under 1/k_total is {ratio:.2g} "
            "times that under 1/√d; " + _DRAWS
        },
        check="{every}",
    ),
    "bernhard-vanishing-gradients": Claim(
        "k_total_alternatives",
        "bernhard2023alternatives",
        "5",
        r"In our explorations, pre-dividing by $k_{total}$ has appeared to decrease the "
        r"distortion by the softmax function and help avoid the issue of vanishing gradients",
        "In his section 6 definition (components near 0 or 1): 1/k_total saturates clearly less "
        "than 1/√d somewhere and clearly more nowhere (Holm-corrected over every configuration); "
        "a caveat where that comes at a price: nearly uniform attention, or a median gradient "
        "reaching the query below half of 1/√d's.",
        says={
            ANY: "share of rows whose largest probability exceeds {threshold:g}: 1/k_total "
            "{sat_a:range:.3g}, 1/√d {sat_b:range:.3g}; 1/k_total is clearly less saturated "
            "in {less:share:configuration} and clearly more in {more:number}, with a clearly "
            "lower W₁ in {lower_w:number}; the price: the gradient reaching the query, ‖ds/dq‖ "
            "with the factor, is {ratio:range:.2g} times 1/√d's (median {median:.2g}; times "
            "n, median {times_n:.2g}); effective keys / n under 1/k_total {share_min:.3f} or "
            "more (nearly uniform in {uniform}); " + _DRAWS
        },
    ),
    "bernhard-transformer-performance": Claim(
        "string_reversal",
        "bernhard2023alternatives",
        "6",
        "Although further and more systematic testing is still needed, the author has "
        "conducted preliminary experiments using this modified transformer architecture and it "
        "appears to perform well.",
        "On the one task trained here (Chuang's string reversal), 1/k_total learns it (every "
        "seed at 95 % validation token accuracy within the long budget) wherever 1/√d does, in "
        "the same runs. Bernhard names no task, model or baseline, so the verdict is about this "
        "task; his hedge is kept in the check.",
        check="Bernhard names no task, model, metric or baseline, and hedges (preliminary, "
        "further testing needed), so the verdict is about the one task trained here, with 1/√d "
        "in the same runs as the baseline; learns = every seed learns within the long budget "
        "([…]: 95 % t interval over seeds)",
        says={
            "holds": "1/k_total learns the task wherever 1/√d does ({good:list}). "
            "{setups:details:setup} (after {long} steps)",
            "caveat": "1/k_total learns the task in {good:list}, not in {missed:list}, where "
            "1/√d does. {setups:details:setup} (after {long} steps)",
            "fails": "Where 1/√d learns the task ({baseline:list}), 1/k_total does not: on this "
            "task it does not perform well. {setups:details:setup} (after {long} steps)",
            "untestable": "1/√d learns the task in no setup, so there is no baseline that "
            "learns. {setups:details:setup} (after {long} steps)",
            "untrained": "1/k_total was not trained in this run",
        },
        words={
            "setup": "{setup}: 1/k_total {k_total} vs 1/√d {sqrt} (steps to 95%: {k_steps} vs "
            "{sqrt_steps})"
        },
    ),
    "bernhard-q-norm-undesirable": Claim(
        "string_reversal",
        "bernhard2023alternatives",
        "3",
        r"If we were modifying the scalar attention function, it might be tempting to divide "
        r"it by $\|q\|$ , but (even ignoring the possibility of this being 0) that would make "
        r"the scalar attention function independent of $\|q\|$ , which seems undesirable.",
        "A logit independent of ‖q‖ hurts: QK-norm (whose logits do not depend on ‖q‖; it also "
        "normalizes k and multiplies by a gain, so it is a proxy) trains worse than 1/√d in the "
        "same runs: lower accuracy by more than 2 standard errors, or slower to 95 % by a factor "
        "1.5. As good or better in every setup refutes it on this task.",
        unreachable={
            Verdict.HOLDS: "QK-norm is a proxy for dividing by ‖q‖ (it also normalizes k and "
            "adds a gain), so evidence for the claim is at most a caveat"
        },
        check="QK-norm (fixed gain) against 1/√d in the same runs, validation token accuracy "
        "and steps to 95%; worse = lower by more than 2 standard errors and a minimum gap, or "
        "slower by a set factor; QK-norm is only a proxy for Bernhard's modification (it also "
        "normalizes k and adds a gain), so evidence for his judgement is at most a caveat, and "
        "QK-norm as good everywhere refutes it on this task only",
        says={
            "caveat": "QK-norm trains worse than 1/√d in {worse:list}: evidence for the claim "
            "through a proxy, since QK-norm also normalizes k and adds a gain. "
            "{setups:details:setup} (after {long} steps)",
            "fails": "QK-norm trains as well as 1/√d or better in every setup: on this task a "
            "logit independent of ‖q‖ does no harm (through a proxy: QK-norm also normalizes k "
            "and adds a gain). {setups:details:setup} (after {long} steps)",
            "one-seed": "With one seed of a method in a setup there is no spread to judge a "
            "difference by, so this run cannot tell whether QK-norm trains worse. "
            "{setups:details:setup} (after {long} steps)",
            "untrained": "QK-norm was not trained in this run",
        },
        words={
            "setup": "{setup}: QK-norm {qk} vs 1/√d {sqrt} (standard error of the difference "
            "{se}), steps to 95%: {qk_steps} vs {sqrt_steps}"
        },
    ),
    "bernhard-unscaled-good-scalar": Claim(
        "",
        "bernhard2023alternatives",
        "2",
        "It suggests that the ordinary, unscaled dot product (as used already in [3]) is "
        "actually a good scalar attention function; rescaling follows it only because of how it "
        "is to be used in a particular neural network context.",
        "The unscaled dot product is a good scalar attention function once the scale is moved "
        "into the rescaling function.",
        untestable="a choice of viewpoint: moving the factor into the rescaling leaves the "
        "attention unchanged (the 'minor shift in perspective' claim checks that), and 'good' "
        "names no measure",
    ),
    "bernhard-fig1-vanishing-inference": Claim(
        "bernhard_figures",
        "bernhard2023alternatives",
        "2, Figure 1(b)",
        "Because the shape after applying softmax is weighted heavily near 0 and has a "
        "pronounced right skew, it is apparent that applying softmax to the unscaled dot "
        "product would be prone to vanishing gradient issues.",
        "At Figure 1's setting (d = 16, n = 32), over many draws and paired with 1/√d on the "
        "same dot products: without scaling the softmax's own gradient is smaller (a clearly "
        "lower mean Jacobian norm of the rows) and more first components sit near 0 or 1 "
        "(Bernhard's own sign of vanishing gradients, section 6).",
        says={
            "holds": "both signs: without scaling the softmax's own gradient is clearly smaller "
            "and clearly more first components sit near 0 or 1; mean Jacobian norm of the rows "
            "{jacobian_none:.3f} without scaling, {jacobian_sqrt_d:.3f} with 1/√d (paired "
            "difference {jacobian_difference:.3f} ± {jacobian_se:.3f}); first components near 0 "
            "or 1: {extreme_none:.1%} against {extreme_sqrt_d:.1%}; {draws} draws",
            "caveat": "one of the two signs: {shown:words}, but {missing:words}; mean Jacobian "
            "norm of the rows {jacobian_none:.3f} without scaling, {jacobian_sqrt_d:.3f} with "
            "1/√d (paired difference {jacobian_difference:.3f} ± {jacobian_se:.3f}); first "
            "components near 0 or 1: {extreme_none:.1%} against {extreme_sqrt_d:.1%}; {draws} "
            "draws",
            "fails": "neither sign: {missing:words}; mean Jacobian norm of the rows "
            "{jacobian_none:.3f} without scaling, {jacobian_sqrt_d:.3f} with 1/√d (paired "
            "difference {jacobian_difference:.3f} ± {jacobian_se:.3f}); first components near 0 "
            "or 1: {extreme_none:.1%} against {extreme_sqrt_d:.1%}; {draws} draws",
            "untestable": "the draws cannot tell the two scalings apart on either sign; mean "
            "Jacobian norm of the rows {jacobian_none:.3f} without scaling, {jacobian_sqrt_d:.3f} "
            "with 1/√d (paired difference {jacobian_difference:.3f} ± {jacobian_se:.3f}); first "
            "components near 0 or 1: {extreme_none:.1%} against {extreme_sqrt_d:.1%}; {draws} "
            "draws",
            "one-draw": "{draws:count:draw}: a paired test needs at least two",
        },
        check="the dot products of every draw at d = {d}, without scaling and with 1/√d: mean "
        "Jacobian norm of the rows and share of first components below 1/(10 n) or above 0.9, "
        "paired over draws, one-sided t tests Bonferroni-corrected over the two comparisons",
        words={
            "jacobian": "the softmax's own gradient is clearly smaller without scaling",
            "extreme": "Bernhard's own sign is there (clearly more first components near 0 or 1 "
            "without scaling, section 6)",
            "jacobian-opposite": "the unscaled Jacobian norm is clearly larger",
            "jacobian-unclear": "the unscaled Jacobian norm is not clearly smaller",
            "extreme-opposite": "clearly fewer first components sit near 0 or 1 without scaling",
            "extreme-unclear": "not clearly more first components sit near 0 or 1 without scaling",
        },
    ),
    "bernhard-section5-more-complicated": Claim(
        "k_total_alternatives",
        "bernhard2023alternatives",
        "5",
        "These are more complicated,",
        "Each of the three alternatives (the mean key length Σ‖k_i‖/n, √(Σ‖k_i‖²), the p-norm) "
        "takes more arithmetic than k_total = Σ‖k_i‖, by an amount that grows with the number "
        "of keys n: operations counted by sympy on the key lengths for two n.",
        unreachable={
            Verdict.HOLDS: _FORMULAS,
            Verdict.FAILS: _FORMULAS,
            Verdict.UNTESTABLE: "the count needs only the formulas, which are always there",
        },
        says={ANY: "operations beyond k_total's: {groups:items:group}{same:items:same}"},
        check="arithmetic operations of each divisor on the n key lengths, counted by sympy at "
        "n = {small} and {large}; more complicated means more operations by an amount that "
        "grows with n",
        words={
            "group": "{names:list}, {at_small} at n = {small} and {at_large} at n = {large}",
            "same": "; no more complicated: {names:list}, a fixed number of operations more "
            "whatever n (the mean key length is k_total/n)",
        },
    ),
    "bernhard-k-total-long-strings": Claim(
        "length_generalization",
        "bernhard2023alternatives",
        "2",
        r"it opens up the possibility that the rescaling might depend not solely on the "
        r"dimension of the keys (as with dividing by  $\sqrt{d}$ ) but possibly on the number "
        r"of keys in  $\mathcal{K}$  (as softmax does), or even on the keys  "
        r"$k_1, \dots, k_n$  themselves.",
        setting=FIRST_TASK,
        reading="1/k_total, which depends on the keys and so on their number, read "
        "at a number of keys it was not trained at, a prediction the book derives: with keys "
        "of similar lengths k_total grows like n, so its logits shrink like 1/n. Tested: at "
        "the longest length 1/k_total is solved (interval at or above 0.95) and not clearly "
        "below 1/√d, paired by seed. Clearly unsolved but clearly better than guessing is a "
        "caveat; clearly below 1/√d, or no better than guessing, refutes it. The verdict line "
        "gives how far its factor fell.",
        check=FIRST_CHECK + " (one at the longest length)",
        says={
            "holds": "1/k_total solves FIRST at {longest:,} bits, not clearly below 1/√d: "
            + _K_TOTAL,
            "below": "1/k_total solves FIRST at {longest:,} bits but is clearly below 1/√d: "
            + _K_TOTAL,
            "caveat": "1/k_total carries over to {longest:,} bits in part: it clearly does not "
            "solve FIRST there, but clearly does better than guessing; " + _K_TOTAL,
            "fails": "1/k_total does not solve FIRST at {longest:,} bits and is clearly below "
            "1/√d: " + _K_TOTAL,
            "chance": "1/k_total does no better than guessing at {longest:,} bits: " + _K_TOTAL,
            "untestable": "at {longest:,} bits the seeds cannot tell whether 1/k_total solves "
            "FIRST: " + _K_TOTAL,
            "guessing": "at {longest:,} bits the seeds cannot tell whether 1/k_total does better "
            "than guessing: " + _K_TOTAL,
            "not-learned": FIRST_UNLEARNED,
            **FIRST_UNTESTABLE,
        },
        words=FIRST_WORDS,
    ),
}
