import pytest

from theory.nested import format_nested, parse_nested
from translators.wording.asked_class import asked_class, with_asked_class
from translators.wording.ontology import bundled_ontology


@pytest.mark.parametrize(
    ("question", "cls"),
    [
        ("What animals are on the sofa?", "animal"),
        ("On what item of furniture is the cat?", "furniture"),
        ("What kind of food does the girl hold?", "food"),
        ("Which traffic light is red?", "traffic_light"),
        ("What color is the car?", None),  # a category, not a class
        ("What is on the table?", None),
        ("Is the man holding food?", None),
        ("Which object is next to the window?", None),  # any object
        ("What can you see on the table?", None),  # a modal verb, not a can
        ("Who is wearing the scarf?", "person"),
        ("With whom is the dog playing?", "person"),
        ("Whose is the bag?", None),
    ],
)
def test_the_class_after_the_wh_word(question, cls):
    assert asked_class(question, bundled_ontology()) == cls


def test_the_last_relation_to_any_object_names_the_asked_class():
    ontology = bundled_ontology()
    program = parse_nested("query(unique(relate_any(select(scene(), sofa), on, subject)), name)")
    fixed, fixes = with_asked_class(program, "What animals are on the sofa?", ontology)
    assert format_nested(fixed) == "query(unique(relate(select(scene(), sofa), animal, on, subject)), name)"
    assert [f.rule for f in fixes] == ["asked class"]
    # A relation that names a class already, or a question that names none, is left as written.
    named = parse_nested("query(unique(relate(select(scene(), sofa), food, on, subject)), name)")
    assert with_asked_class(named, "What animals are on the sofa?", ontology) == (named, [])
    assert with_asked_class(program, "What is on the sofa?", ontology) == (program, [])
    worn = parse_nested("query(unique(relate_any(select(scene(), scarf), wearing, subject)), name)")
    fixed, _ = with_asked_class(worn, "Who wears the scarf?", ontology)
    assert format_nested(fixed) == "query(unique(relate(select(scene(), scarf), person, wearing, subject)), name)"


def test_gqa_programs_of_the_tuning_part_stay_as_they_are(tuning_programs):
    ontology = bundled_ontology()
    asked = sum(asked_class(question, ontology) is not None for question, _ in tuning_programs)
    changed = [q for q, program in tuning_programs if with_asked_class(program, q, ontology)[1]]
    assert asked > 200 and changed == []


def test_a_word_the_ontology_lacks_is_the_asked_class_only_before_a_verb():
    ontology = bundled_ontology()
    assert asked_class("What weapon is the boy holding?", ontology) == "weapon"
    assert asked_class("What wears trousers?", ontology) is None


def test_what_is_doing_something_names_no_class():
    ontology = bundled_ontology()
    program = parse_nested("query(unique(relate(select(scene(), scarf), scarf, wearing, subject)), name)")
    fixed, fixes = with_asked_class(program, "What is wearing a scarf?", ontology)
    assert format_nested(fixed) == "query(unique(relate_any(select(scene(), scarf), wearing, subject)), name)"
    assert [f.rule for f in fixes] == ["no asked class"]
    # "Who" asks for a person, and "what is the skier ..." names what the relation starts from.
    assert with_asked_class(program, "Who is wearing a scarf?", ontology) == (program, [])
    assert with_asked_class(program, "What is the skier wearing?", ontology) == (program, [])
    assert format_nested(with_asked_class(program, "What wears a scarf?", ontology)[0]) == format_nested(fixed)


def test_what_kind_of_a_class_asks_its_name_and_the_value_said_filters():
    from translators.wording.asked_class import with_asked_kind

    ontology = bundled_ontology()
    program = parse_nested("query(unique(select(scene(), clothing)), color)")
    fixed, fixes = with_asked_kind(program, "Which kind of clothing is green?", ontology)
    assert format_nested(fixed) == "query(unique(filter(select(scene(), clothing), color, green)), name)"
    assert [f.rule for f in fixes] == ["asked kind", "asked kind"]
    assert with_asked_kind(program, "What color is the clothing?", ontology) == (program, [])


def test_gqa_programs_of_the_tuning_part_ask_the_kind_as_they_are(tuning_programs):
    from translators.wording.asked_class import with_asked_kind

    ontology = bundled_ontology()
    assert [q for q, program in tuning_programs if with_asked_kind(program, q, ontology)[1]] == []


def test_a_question_ending_with_its_relation_and_what_asks_what_the_relation_reaches():
    ontology = bundled_ontology()
    girl = "relate(select(scene(), bottle), girl, to_the_left_of, subject)"
    program = parse_nested(f"query(unique(relate({girl}, girl, wearing, subject)), name)")
    fixed, fixes = with_asked_class(program, "The girl that to the left of the bottle wears what?", ontology)
    assert format_nested(fixed) == f"query(unique(relate_any({girl}, wearing, object)), name)"
    assert [f.rule for f in fixes] == ["asks what it reaches"]
    assert with_asked_class(fixed, "The girl that to the left of the bottle wears what?", ontology) == (fixed, [])
