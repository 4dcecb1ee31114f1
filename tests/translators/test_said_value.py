import pytest

from theory.nested import format_nested, parse_nested
from translators.wording.ontology import bundled_ontology
from translators.wording.said_value import with_said_values


@pytest.mark.parametrize(
    ("question", "written", "said"),
    [
        (
            "What food isn't sliced?",
            "query(unique(negate(filter(select(scene(), food), preparation, slicing), select(scene(), food))), name)",
            "query(unique(negate(filter(select(scene(), food), preparation, sliced), select(scene(), food))), name)",
        ),
        (  # another category: a cutting is an activity, cut food a preparation
            "Is the bread cut?",
            "verify_attr(unique(select(scene(), bread)), activity, cutting)",
            "verify_attr(unique(select(scene(), bread)), preparation, cut)",
        ),
    ],
)
def test_a_value_takes_the_form_the_question_says_it_in(question, written, said):
    fixed, fixes = with_said_values(parse_nested(written), question, bundled_ontology())
    assert format_nested(fixed) == said
    assert [f.rule for f in fixes] == ["said value"]


@pytest.mark.parametrize(
    ("question", "written"),
    [
        ("Is the pole metallic?", "verify_attr(unique(select(scene(), pole)), material, metal)"),  # GQA's name
        ("Is the man cutting the cake?", "verify_attr(unique(select(scene(), man)), activity, cutting)"),  # as said
        ("Is the shirt red?", "verify_attr(unique(select(scene(), shirt)), color, red)"),
        ("Is the woman standing?", "verify_attr(unique(select(scene(), woman)), pose, standing)"),
    ],
)
def test_a_value_said_as_written_or_by_a_usual_name_stays(question, written):
    program = parse_nested(written)
    assert with_said_values(program, question, bundled_ontology()) == (program, [])
