from theory.flat import parse_flat
from translators.checks.read_back import mismatch
from translators.wording.ontology import bundled_ontology

ONTOLOGY = bundled_ontology()


def test_the_name_of_an_object_the_question_names_is_not_what_it_asks():
    program = parse_flat("scene(0). select(1, 0, sauce). unique(2, 1). query(3, 2, name). end(3).")
    assert mismatch(program, "What brand is the sauce?", ONTOLOGY) is not None


def test_the_name_of_one_of_two_compared_objects_is_open():
    program = parse_flat(
        "scene(0). select(1, 0, man). unique(2, 1). select(3, 0, woman). unique(4, 3). "
        "compare(5, 2, 4, tall, true). query(6, 5, name). end(6)."
    )
    assert mismatch(program, "Who is taller, the man or the woman?", ONTOLOGY) is None
