"""Choosing an abstention threshold on a calibration set so that kept answers carry a bounded risk.

An answer is kept when its confidence is at least the threshold lambda. Two guarantees, both for
new questions exchangeable with the calibration set:

- ``crc`` (conformal risk control, Angelopoulos et al. 2022): the loss of a question is 1 when it
  is kept and wrong; the smallest lambda with (n/(n+1)) * empirical risk + B/(n+1) <= alpha
  (B = 1) gives expected loss <= alpha, i.e. at most a share alpha of all questions is answered
  wrongly;
- ``ltt`` (Learn then Test, Angelopoulos et al. 2021): the share wrong *among the kept answers*
  is at most alpha with probability 1 - delta; thresholds are tested from the strictest down
  (fixed-sequence testing) with the exact binomial tail, and the last one that passes is taken.
  The sequence starts at the first threshold that keeps enough answers for a pass to be possible
  at all (a count fixed by alpha and delta), else it would stop at its first, hopeless, test.

The first is the brief's bound and needs no test; the second is the statement a user makes
("at most 10 % wrong among the answers you give me") and is stricter.

Example:
    >>> fit = fit_threshold([0.9, 0.8, 0.7, 0.2, 0.1], [False, False, False, True, True], 0.3)
    >>> fit.threshold, fit.coverage
    (0.7, 0.6)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

METHODS = ("crc", "ltt")
NEVER = float("inf")  # the threshold that keeps nothing


@dataclass(frozen=True)
class ThresholdFit:
    """A fitted threshold and what it does on the calibration set."""

    method: str
    risk: float
    threshold: float
    coverage: float  # share of the calibration questions kept
    kept_wrong: float  # share of all calibration questions kept and wrong
    wrong_among_kept: float | None  # None when nothing is kept
    n: int


def _bound_ok(method: str, n: int, kept: int, wrong_kept: int, alpha: float, delta: float) -> bool:
    if method == "crc":
        return (n / (n + 1)) * (wrong_kept / n) + 1.0 / (n + 1) <= alpha
    # p-value of "wrong among kept > alpha": the chance of so few wrong ones if the rate were alpha.
    return kept > 0 and binomial_cdf(wrong_kept, kept, alpha) <= delta


def _least_kept(alpha: float, delta: float) -> int:
    # The fewest kept answers with which "none wrong" passes: (1 - alpha)^k <= delta. The sequence
    # starts there; this depends on the scores' count only, never on the labels, so testing stays valid.
    return math.ceil(math.log(delta) / math.log1p(-alpha))


def binomial_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p), summed in log space.

    Written out (a dozen lines) so that the service needs no statistics library for it.

    >>> round(binomial_cdf(1, 10, 0.5), 6)
    0.010742
    """
    if k >= n:
        return 1.0
    log_p, log_q = math.log(p), math.log1p(-p)
    terms = [
        math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * log_p + (n - i) * log_q
        for i in range(k + 1)
    ]
    top = max(terms)
    return min(1.0, math.exp(top) * sum(math.exp(t - top) for t in terms))


def fit_threshold(
    scores: Sequence[float], wrong: Sequence[bool], risk: float, method: str = "crc", delta: float = 0.1
) -> ThresholdFit:
    """The threshold of `method` for `risk` (see the module docstring); `inf` when none qualifies."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}")
    if not 0.0 < risk < 1.0:
        raise ValueError("risk must lie strictly between 0 and 1")
    if len(scores) != len(wrong) or not scores:
        raise ValueError("scores and labels must be non-empty and of one length")
    pairs = sorted(zip(scores, wrong), key=lambda p: -p[0])
    n = len(pairs)
    chosen = NEVER
    wrong_kept = 0
    # Lowering lambda past each distinct score keeps one more group; both losses only grow.
    for i, (score, is_wrong) in enumerate(pairs):
        wrong_kept += bool(is_wrong)
        if i + 1 < n and pairs[i + 1][0] == score:
            continue
        if method == "ltt" and i + 1 < _least_kept(risk, delta):
            continue  # too few kept to pass even with none wrong: not yet a hypothesis of the sequence
        if not _bound_ok(method, n, i + 1, wrong_kept, risk, delta):
            break
        chosen = float(score)
    return threshold_outcome(method, risk, chosen, scores, wrong)


def threshold_outcome(
    method: str, risk: float, threshold: float, scores: Sequence[float], wrong: Sequence[bool]
) -> ThresholdFit:
    """What `threshold` does on these scores and labels."""
    n = len(scores)
    kept = [bool(w) for s, w in zip(scores, wrong) if s >= threshold]
    return ThresholdFit(
        method=method,
        risk=risk,
        threshold=threshold,
        coverage=len(kept) / n if n else 0.0,
        kept_wrong=sum(kept) / n if n else 0.0,
        wrong_among_kept=sum(kept) / len(kept) if kept else None,
        n=n,
    )


def auroc(scores: Sequence[float], positive: Sequence[bool]) -> float | None:
    """Area under the ROC curve of `scores` for `positive` (ties count half); None without both classes.

    The Mann-Whitney rank statistic, written out so the service needs no statistics library.

    >>> auroc([0.1, 0.4, 0.35, 0.8], [False, False, True, True])
    0.75
    """
    pos = [s for s, p in zip(scores, positive) if p]
    neg = [s for s, p in zip(scores, positive) if not p]
    if not pos or not neg:
        return None
    ranked = sorted(scores)
    # Average 1-based rank of each distinct score (ties share the mean of their ranks).
    first: dict[float, int] = {}
    last: dict[float, int] = {}
    for i, s in enumerate(ranked, 1):
        first.setdefault(s, i)
        last[s] = i
    rank_sum = sum((first[s] + last[s]) / 2 for s in pos)
    return (rank_sum - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg))


def risk_coverage(scores: Sequence[float], wrong: Sequence[bool]) -> list[tuple[float, float, float]]:
    """(threshold, coverage, wrong among kept) at every distinct score, strictest first."""
    pairs = sorted(zip(scores, wrong), key=lambda p: -p[0])
    curve = []
    wrong_kept = 0
    for i, (score, is_wrong) in enumerate(pairs):
        wrong_kept += bool(is_wrong)
        if i + 1 < len(pairs) and pairs[i + 1][0] == score:
            continue
        curve.append((float(score), (i + 1) / len(pairs), wrong_kept / (i + 1)))
    return curve


def coverage_at_risk(scores: Sequence[float], wrong: Sequence[bool], risk: float) -> float:
    """The largest share of the questions a threshold keeps with at most `risk` wrong among the kept (0: none)."""
    return max((c for _, c, r in risk_coverage(scores, wrong) if r <= risk), default=0.0)


def effective_reliability(outcomes: Sequence[bool | None], cost: float) -> float:
    """Effective Reliability Phi_c (Whitehead et al., ECCV 2022) over questions: +1 for a kept right
    answer (True), -`cost` for a kept wrong one (False), 0 for one declined or held back (None).

    >>> effective_reliability([True, True, False, None], cost=1.0)
    0.25
    """
    if not outcomes:
        return 0.0
    return sum(1.0 if o else -cost for o in outcomes if o is not None) / len(outcomes)


def smallest_risk(n: int, method: str = "crc") -> float:
    """The smallest risk for which `n` calibration questions can give a threshold at all."""
    # crc: B/(n+1) is the bound at zero observed loss; ltt: k kept, none wrong passes when (1-a)^k <= delta.
    return 1.0 / (n + 1) if method == "crc" else 1.0 - 0.1 ** (1.0 / max(n, 1))
