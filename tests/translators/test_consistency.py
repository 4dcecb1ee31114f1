from theory.flat import parse_flat
from translators.checks.consistency import majority_vote

A = parse_flat("scene(0). select(1, 0, cup). exist(2, 1). end(2).")
A_RENUMBERED = parse_flat("scene(4). select(7, 4, cup). exist(9, 7). end(9).")
B = parse_flat("scene(0). select(1, 0, dog). exist(2, 1). end(2).")


def test_majority_counts_programs_equal_up_to_numbering():
    vote = majority_vote([B, A, A_RENUMBERED, None])
    assert vote.majority == A and vote.agreement == 0.5
    assert sorted(vote.counts.values()) == [1, 2]


def test_ties_go_to_the_first_sampled_program_and_no_program_gives_no_majority():
    assert majority_vote([B, A]).majority == B
    empty = majority_vote([None, None])
    assert empty.majority is None and empty.agreement == 0.0
