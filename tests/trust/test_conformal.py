"""Thresholds by conformal risk control and Learn then Test, AUROC and the risk-coverage curve."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trust.conformal import auroc, binomial_cdf, fit_threshold, risk_coverage, smallest_risk, threshold_outcome

labelled = st.lists(st.tuples(st.floats(0, 1, allow_nan=False), st.booleans()), min_size=1, max_size=60)


@given(labelled, st.floats(0.01, 0.9))
def test_crc_threshold_meets_its_bound_on_the_calibration_set(pairs, risk):
    scores, wrong = [s for s, _ in pairs], [w for _, w in pairs]
    fit = fit_threshold(scores, wrong, risk, "crc")
    n = len(scores)
    if math.isfinite(fit.threshold):
        assert (n / (n + 1)) * fit.kept_wrong + 1 / (n + 1) <= risk + 1e-12
    else:
        assert fit.coverage == 0.0


@given(labelled, st.floats(0.01, 0.45), st.floats(0.0, 0.45), st.sampled_from(["crc", "ltt"]))
def test_a_larger_risk_never_keeps_fewer(pairs, low, extra, method):
    scores, wrong = [s for s, _ in pairs], [w for _, w in pairs]
    strict, loose = fit_threshold(scores, wrong, low, method), fit_threshold(scores, wrong, low + extra, method)
    assert loose.coverage >= strict.coverage


def test_ltt_bounds_the_wrong_among_kept_on_fresh_data():
    # Scores that separate right from wrong imperfectly; thresholds fitted on one sample hold on another.
    rng = random.Random(0)

    def sample(n):
        wrong = [rng.random() < 0.3 for _ in range(n)]
        return [min(1.0, max(0.0, rng.gauss(0.35 if w else 0.65, 0.15))) for w in wrong], wrong

    scores, wrong = sample(2000)
    fit = fit_threshold(scores, wrong, 0.1, "ltt", delta=0.05)
    fresh = threshold_outcome("ltt", 0.1, fit.threshold, *sample(20000))
    # The guarantee holds with probability 1 - delta; the fresh sample adds its own noise (sd ~0.003).
    assert 0.3 < fresh.coverage < 0.9 and fresh.wrong_among_kept is not None and fresh.wrong_among_kept <= 0.1 + 0.006


def test_no_threshold_when_the_risk_is_below_what_n_questions_can_show():
    fit = fit_threshold([0.9, 0.8], [False, False], 0.2, "crc")
    assert fit.threshold == math.inf and fit.coverage == 0.0
    assert smallest_risk(2) == pytest.approx(1 / 3)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="method"):
        fit_threshold([0.5], [True], 0.1, "bogus")
    with pytest.raises(ValueError, match="risk"):
        fit_threshold([0.5], [True], 1.0)
    with pytest.raises(ValueError, match="non-empty"):
        fit_threshold([], [], 0.1)


@given(st.lists(st.tuples(st.floats(0, 1, allow_nan=False), st.booleans()), min_size=2, max_size=40))
def test_auroc_matches_the_pairwise_definition(pairs):
    scores, positive = [s for s, _ in pairs], [p for _, p in pairs]
    pos = [s for s, p in pairs if p]
    neg = [s for s, p in pairs if not p]
    found = auroc(scores, positive)
    if not pos or not neg:
        assert found is None
        return
    pairwise = sum((a > b) + 0.5 * (a == b) for a in pos for b in neg) / (len(pos) * len(neg))
    assert found == pytest.approx(pairwise)


def test_binomial_cdf_is_exact_for_small_cases():
    assert binomial_cdf(0, 3, 0.5) == pytest.approx(0.125)
    assert binomial_cdf(2, 3, 0.5) == pytest.approx(0.875)
    assert binomial_cdf(3, 3, 0.5) == 1.0


def test_risk_coverage_goes_from_strict_to_all():
    curve = risk_coverage([0.9, 0.7, 0.7, 0.1], [False, True, False, True])
    assert curve == [(0.9, 0.25, 0.0), (0.7, 0.75, 1 / 3), (0.1, 1.0, 0.5)]
