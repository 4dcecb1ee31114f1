import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theory.flat import format_flat, parse_flat
from translators.examples.bank import Example, ExampleBank
from translators.model.backends.base import Backend
from translators.rules.template_fill import TemplateFiller
from translators.translate import TranslationSettings, Translator
from translators.wording.ontology import bundled_ontology

ONTOLOGY = bundled_ontology()


def _example(example_id: str, question: str, flat: str, **extra) -> Example:
    return Example(example_id, question, parse_flat(flat), **extra)


RED_CUP = _example(
    "e1", "Is there a red cup?", "scene(0). select(1, 0, cup). filter(2, 1, color, red). exist(3, 2). end(3)."
)
BLUE_BAG = _example(
    "e2", "Is there a blue plate?", "scene(0). select(1, 0, plate). filter(2, 1, color, blue). exist(3, 2). end(3)."
)
BIG_DOG = _example("b1", "How big is the dog?", "scene(0). select(1, 0, dog). unique(2, 1). query(3, 2, size). end(3).")
MUG_ON_TABLE = _example(
    "e3",
    "What color is the mug that is on the table?",
    "scene(0). select(1, 0, table). relate(2, 1, mug, on, subject). unique(3, 2). query(4, 3, color). end(4).",
)


def _filler(*examples: Example) -> TemplateFiller:
    return TemplateFiller(ExampleBank(list(examples)), ONTOLOGY)


def _filled(filler: TemplateFiller, question: str) -> str | None:
    """The question's filled program as flat text, or None when none is filled."""
    filled = filler.fill(question)
    return format_flat(filled.program) if filled is not None else None


def test_the_question_words_take_the_place_of_the_example_words():
    filled = _filler(RED_CUP, MUG_ON_TABLE).fill("What color is the lamp that is on the desk?")
    assert filled is not None and filled.examples == (MUG_ON_TABLE,)
    assert format_flat(filled.program) == (
        "scene(0). select(1, 0, desk). relate(2, 1, lamp, on, subject). unique(3, 2). query(4, 3, color). end(4)."
    )


def test_articles_plurals_and_contractions_do_not_change_the_form():
    filler = _filler(RED_CUP)
    assert filler.form("Is there the red cup?") == filler.form("Is there a red cup?") == "is there color thing"
    assert filler.form("Is there a red cups?") == "is there color thing"
    assert filler.form("What's this?") == filler.form("What is this?")
    filled = filler.fill("Is there a green plates?")
    assert filled is not None and "select(1, 0, plates)" in format_flat(filled.program)


def test_a_group_word_is_its_own_role():
    animal = _example(
        "g1", "What kind of animal is this?", "scene(0). select(1, 0, animal). unique(2, 1). query(3, 2, name). end(3)."
    )
    filler = _filler(animal)
    assert filler.form("What kind of appliance is this?") == "what kind of group is it"
    filled = filler.fill("What kind of appliance is this?")
    assert filled is not None and "select(1, 0, appliance)" in format_flat(filled.program)
    assert filler.fill("What kind of chair is this?") is None  # a class is not a group


def test_which_part_or_side_asks_where_the_object_is_not_about_a_part():
    top = _example(
        "p1",
        "In which part is the ladder, the top or the bottom?",
        "scene(0). select(1, 0, ladder). unique(2, 1). choose_attr(3, 2, vposition, top, bottom). end(3).",
    )
    filler = _filler(top)
    assert filler.form("In which part is the fruit, the top or the bottom?") == "in what part is group top or bottom"
    filled = filler.fill("In what part is the cat, the top or the bottom?")
    assert filled is not None and "select(1, 0, cat)" in format_flat(filled.program)
    assert filler.form("What part of the plant is green?").startswith("what part")
    assert "group" in filler.form("Is the part red?") or "thing" in filler.form("Is the part red?")  # a part still


def test_wordings_that_never_change_a_program_share_a_form():
    filler = _filler(RED_CUP)
    assert filler.form("Which kind of fruit is it?") == filler.form("What type of fruit is this?")
    assert (
        filler.form("Which color is that jacket?") == filler.form("What color is the jacket?") == "what color is thing"
    )
    assert filler.form("What room is that?") == filler.form("What room is it?") == "what place is it"
    assert filler.form("Who do you think is holding a bat?") == filler.form("Who is holding a bat?")
    assert filler.form("Who do you think wears a shirt?") == filler.form("Who wears a shirt?")
    assert filler.form("What color are these cups?") == filler.form("What color are the cups?")
    assert filler.form("Are those cups red?") == filler.form("Are the cups red?")
    # A relative "that", a "do you think" asking an opinion, and "these" with no class after it are
    # part of the form.
    assert filler.form("What is the man that is sitting holding?") == "what is thing that is pose holding"
    assert "do you think" in filler.form("What do you think about the cup?")
    assert "do you think" in filler.form("Do you think about the cup?")
    assert filler.form("What are these?") == "what are these"


def test_a_word_known_only_as_an_adjective_is_a_value_of_no_category_when_the_translator_says_so():
    adjectives = {"comfortable", "leafless"}
    plain = _filler(RED_CUP)
    opened = TemplateFiller(ExampleBank([RED_CUP]), bundled_ontology(), adjectives.__contains__)
    assert ("comfortable", None) in plain.raw_slots("Are the sneakers comfortable?")
    assert ("property", "comfortable") in opened.raw_slots("Are the sneakers comfortable?")
    # Words the ontology reads, and the words every program reads, stay as they are.
    assert opened.raw_slots("Is the cup red?") == plain.raw_slots("Is the cup red?")
    assert opened.form("What color are the cups?") == plain.form("What color are the cups?")
    # Read so, it takes the place of an uncategorised value of the ontology's ("closed").
    closed = _example(
        "e9", "Are the doors closed?", "scene(0). select(1, 0, doors). unique(2, 1). filter_any(3, 2, closed). "
        "exist(4, 3). end(4).",
    )  # fmt: skip
    asked = "Are the chairs comfortable?"
    assert _filler(closed).fill(asked) is None
    assert _filled(TemplateFiller(ExampleBank([closed]), bundled_ontology(), adjectives.__contains__), asked) == (
        "scene(0). select(1, 0, chairs). unique(2, 1). filter_any(3, 2, comfortable). exist(4, 3). end(4)."
    )


def test_a_value_said_with_its_category_word_takes_the_category_along():
    # "Does the hat have large size?" from "Does the cup have red color?": the category word moves along.
    red_color = _example(
        "e10", "Does the cup have red color?", "scene(0). select(1, 0, cup). unique(2, 1). "
        "verify_attr(3, 2, color, red). end(3).",
    )  # fmt: skip
    assert _filled(_filler(red_color), "Does the hat have large size?") == (
        "scene(0). select(1, 0, hat). unique(2, 1). verify_attr(3, 2, size, large). end(3)."
    )
    # Said where the question says another category than its value's, it keeps the example from filling.
    assert _filler(red_color).fill("Does the hat have large color?") is None


def test_a_how_question_asks_its_values_category_as_the_examples_asks_its_own():
    assert _filled(_filler(BIG_DOG), "How wide is the road?") == (
        "scene(0). select(1, 0, road). unique(2, 1). query(3, 2, width). end(3)."
    )
    # A value the example's program names stays a value: "red" filters, it does not say what is asked.
    red_size = _example(
        "e12", "What size is the red car?", "scene(0). select(1, 0, car). filter(2, 1, color, red). unique(3, 2). "
        "query(4, 3, size). end(4).",
    )  # fmt: skip
    assert _filled(_filler(red_size), "What size is the wooden car?") == (
        "scene(0). select(1, 0, car). filter(2, 1, material, wooden). unique(3, 2). query(4, 3, size). end(4)."
    )


def test_a_question_in_another_wording_is_filled_from_the_bank_example():
    which = _example(
        "w1",
        "Which color is the cup?",
        "scene(0). select(1, 0, cup). unique(2, 1). query(3, 2, color). end(3).",
    )
    filled = _filler(which).fill("What color do you think that plate is?")
    assert filled is None  # word order differs: not the same form
    filled = _filler(which).fill("What color is that plate?")
    assert filled is not None and "select(1, 0, plate)" in format_flat(filled.program)


def test_no_program_when_a_word_would_map_two_ways_or_is_not_in_the_program():
    same_word = _example(
        "s1",
        "Is the cup the same color as the cup?",
        "scene(0). select(1, 0, cup). unique(2, 1). select(3, 0, cup). unique(4, 3). two_same(5, 2, 4, color). end(5).",
    )
    assert _filler(same_word).fill("Is the bag the same color as the plate?") is None
    unused = _example("u1", "Is there a red cup?", "scene(0). select(1, 0, cup). exist(2, 1). end(2).")
    assert _filler(unused).fill("Is there a blue plate?") is None
    assert _filler(RED_CUP).fill("Who is holding the umbrella?") is None


def test_a_word_the_program_does_not_read_may_stay_as_the_example_says_it():
    assert _filled(_filler(BIG_DOG), "How big is the bottle?") == (
        "scene(0). select(1, 0, bottle). unique(2, 1). query(3, 2, size). end(3)."
    )
    # Another word there is still no fill: the program would not say what the question asks.
    assert _filler(BIG_DOG).fill("How small is the bottle?") is None


def test_the_examples_of_one_form_vote_and_excluded_ones_do_not():
    odd = _example(
        "e0", "Is there a green car?", "scene(0). select(1, 0, car). filter(2, 1, color, green). exist(3, 2). end(3)."
    )
    wrong = _example("w0", "Is there a brown dog?", "scene(0). select(1, 0, dog). exist(2, 1). end(2).")
    filler = _filler(wrong, odd, RED_CUP, BLUE_BAG)
    filled = filler.fill("Is there a white horse?")
    assert filled is not None and (filled.votes, filled.voters) == (3, 3)  # `wrong` never names brown
    assert filled.agreement == 1.0
    assert filler.fill("Is there a white horse?", exclude_ids={"e0", "e1", "e2"}) is None
    paraphrase = _example("p1", RED_CUP.question, format_flat(RED_CUP.program), equivalent=frozenset({"q7"}))
    assert _filler(paraphrase).fill("Is there a red cup?", exclude_ids={"q7"}) is None


COLORS = sorted(ONTOLOGY.categories["color"])
CLASSES = sorted(c for c in ONTOLOGY.classes - set(ONTOLOGY.groups) if "_" not in c and c.isalpha())


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(COLORS), st.sampled_from(CLASSES))
def test_every_color_and_class_fills_the_same_program(color, cls):
    filler = _filler(RED_CUP)
    question = f"Is there a {color.replace('_', ' ')} {cls}?"
    filled = filler.fill(question)
    if filler.form(question) != "is there color thing":
        # A word read as another role ("orange" is a color and a fruit) fills only as a value of
        # the category it was read as ("dark" as a brightness), from the example of another category.
        (_, _), (_, _), (role, words), *_ = filler.slots(question)
        category = role.replace(" ", "_")
        if filled is not None:
            assert filled.form.startswith("any category: ") and category in ONTOLOGY.categories
            assert f"filter(2, 1, {category}, {words}). exist(3, 2)." in format_flat(filled.program)
        return
    assert filled is not None
    assert format_flat(filled.program) == (
        f"scene(0). select(1, 0, {cls}). filter(2, 1, color, {color}). exist(3, 2). end(3)."
    )


class NoModel(Backend):
    """A backend that must not be called."""

    name = "none"
    supports_grammar = True

    def generate(self, request):
        raise AssertionError("the model was asked")


def test_the_translator_fills_without_a_model_call_and_says_so():
    bank = ExampleBank([RED_CUP, BLUE_BAG, MUG_ON_TABLE])
    translator = Translator(TranslationSettings(sampling="jaccard", llm="replay"), bank, NoModel())
    result = translator.translate("Is there a yellow kite?")
    assert result.flat == "scene(0). select(1, 0, kite). filter(2, 1, color, yellow). exist(3, 2). end(3)."
    assert result.source == "template" and result.attempts == [] and result.fill["votes"] == 2
    # how close the bank comes to the question, as the model would have been shown it (Jaccard here)
    assert 0.0 < result.fill["similarity"] <= 1.0
    assert result.to_json()["source"] == "template" and "fill_s" in result.timings
    off = Translator(TranslationSettings(sampling="jaccard", llm="replay", template_fill=False), bank, NoModel())
    try:
        off.translate("Is there a yellow kite?")
    except AssertionError as exc:
        assert "asked" in str(exc)
    else:
        raise AssertionError("template_fill=False must ask the model")


def test_the_index_is_kept_beside_a_bank_file_and_read_back(tmp_path, monkeypatch):
    from translators.examples.bank import load_bank, save_bank
    from translators.rules import form_index_file

    save_bank(ExampleBank([RED_CUP, MUG_ON_TABLE]), tmp_path / "bank.jsonl")
    bank = load_bank(tmp_path / "bank.jsonl")
    first = TemplateFiller(bank, ONTOLOGY).fill("What color is the lamp that is on the desk?")
    (stored,) = tmp_path.glob("bank.fill-*.pickle")
    monkeypatch.setattr(TemplateFiller, "slots", lambda self, q: pytest.fail("built again"), raising=True)
    forms = {"is there color thing", "what color is thing that is on thing"}
    assert TemplateFiller(bank, ONTOLOGY).index.keys() == forms
    monkeypatch.undo()
    again = TemplateFiller(bank, ONTOLOGY).fill("What color is the lamp that is on the desk?")
    assert again is not None and first is not None and again.program == first.program
    # An index of other questions, or an unreadable one, is built again.
    form_index_file.write_rows(stored, "another bank", {})
    assert TemplateFiller(bank, ONTOLOGY).fill("Is there a blue plate?") is not None
    stored.write_bytes(b"not a pickle")
    assert TemplateFiller(bank, ONTOLOGY).fill("Is there a blue plate?") is not None


def test_an_index_of_earlier_fill_rules_is_removed_when_the_new_one_is_written(tmp_path):
    from translators.examples.bank import load_bank, save_bank

    save_bank(ExampleBank([RED_CUP, MUG_ON_TABLE]), tmp_path / "bank.jsonl")
    earlier = tmp_path / "bank.fill-000000000000.pickle"
    earlier.write_bytes(b"an index of earlier rules")
    unrelated = tmp_path / "other.fill-000000000000.pickle"
    unrelated.write_bytes(b"another bank's index")
    assert TemplateFiller(load_bank(tmp_path / "bank.jsonl"), ONTOLOGY).fill("Is there a blue plate?") is not None
    (kept,) = tmp_path.glob("bank.fill-*.pickle")
    assert kept != earlier and unrelated.exists()


def test_a_value_that_starts_a_relation_is_a_value_where_the_relation_does_not_follow():
    from translators.examples.bank import legacy_bank
    from translators.rules.template_fill import TemplateFiller
    from translators.wording.ontology import bundled_ontology

    filler = TemplateFiller(legacy_bank(), bundled_ontology())
    assert filler.form("Who is standing?") == filler.form("Who is sitting?") == "who is pose"
    assert "standing on" in filler.form("Who is standing on the rug?")
    assert filler.form("What is the bowl on?").endswith("on")  # "on" is a relation of its own


def test_a_value_of_another_category_takes_its_category_along():
    red_round = _example(
        "c1",
        "Is the cup red and round?",
        "scene(0). select(1, 0, cup). unique(2, 1). verify_attr(3, 2, color, red). verify_attr(4, 2, shape, round). "
        "and(5, 3, 4). end(5).",
    )
    filled = _filler(red_round).fill("Is the cat black and plastic?")
    assert filled is not None and filled.form == "any category: is thing value1 and value2"
    assert format_flat(filled.program) == (
        "scene(0). select(1, 0, cat). unique(2, 1). verify_attr(3, 2, color, black). "
        "verify_attr(4, 2, material, plastic). and(5, 3, 4). end(5)."
    )
    # Two values of one category are never read as two of different ones, nor the other way round.
    assert _filler(red_round).fill("Is the cat black and white?") is None


def test_a_category_the_program_names_without_the_value_keeps_the_example_from_filling():
    # The question says "color": the `query` asks it whatever the value's category is.
    assert _filler(MUG_ON_TABLE).fill("What color is the wooden mug that is on the table?") is None
    color_of_red = _example(
        "c2",
        "What is the red cup made of?",
        "scene(0). select(1, 0, cup). filter(2, 1, color, red). unique(3, 2). query(4, 3, color). end(4).",
    )
    assert _filler(color_of_red).fill("What is the wooden cup made of?") is None


def test_a_relation_takes_the_place_of_another_in_the_same_form():
    sitting = _example(
        "r1",
        "What is the man sitting on?",
        "scene(0). select(1, 0, man). relate_any(2, 1, sitting_on, object). unique(3, 2). query(4, 3, name). end(4).",
    )
    filled = _filler(sitting).fill("What is the boy leaning on?")
    assert filled is not None and filled.form == "any relation: what is thing relation"
    assert "relate_any(2, 1, leaning_on, object)" in format_flat(filled.program)
    # Relation words the program does not read stay as the example says them, or there is no fill.
    left = _example(
        "r2",
        "Is the cup on the left?",
        "scene(0). select(1, 0, cup). unique(2, 1). verify_attr(3, 2, hposition, left). end(3).",
    )
    assert _filler(left).fill("Is the plate on the left?") is not None
    assert _filler(left).fill("Is the plate near the left?") is None


CUP_LEFT_OF_PLATE = _example(
    "g1",
    "Is the cup to the left of the plate?",
    "scene(0). select(1, 0, cup). unique(2, 1). verify_rel(3, 2, plate, to_the_left_of, object). end(3).",
)


def test_a_group_word_outside_a_kind_question_fills_as_any_class():
    filled = _filler(CUP_LEFT_OF_PLATE).fill("Is the animal to the left of the plate?")
    assert filled is not None and filled.form.startswith("groups as classes: ")
    assert "select(1, 0, animal)" in format_flat(filled.program)


def test_a_word_the_program_cannot_read_is_left_out_but_no_word_that_changes_it():
    left_of = CUP_LEFT_OF_PLATE
    filled = _filler(left_of).fill("Is the cup placed to the left of the plate?")
    assert filled is not None and filled.form == "without 'placed': is thing to left of thing"
    assert _filler(left_of).fill("Is the cup not to the left of the plate?") is None  # a negation
    assert _filler(left_of).fill("Is the cup sitting to the left of the plate?") is None  # a relation's word
    red = _example(
        "i2", "Is the cup red?", "scene(0). select(1, 0, cup). unique(2, 1). verify_attr(3, 2, color, red). end(3)."
    )
    assert _filler(red).fill("Is the cup really red?") is not None
    assert _filler(red).fill("Is the cup color red?") is None  # a category's name


def test_is_it_after_or_repeats_the_question():
    choice = _example(
        "o1",
        "Is the cup red or yellow?",
        "scene(0). select(1, 0, cup). unique(2, 1). choose_attr(3, 2, color, red, yellow). end(3).",
    )
    filled = _filler(choice).fill("Is the bench white or is it blue?")
    assert filled is not None and "choose_attr(3, 2, color, white, blue)" in format_flat(filled.program)


def test_a_verbs_number_is_read_as_one_where_the_bank_has_the_form_in_the_other():
    on_street = _example(
        "n1",
        "What animal is on the street?",
        "scene(0). select(1, 0, street). relate(2, 1, animal, on, subject). unique(3, 2). query(4, 3, name). end(4).",
    )
    filler = _filler(on_street)
    assert _filled(filler, "What vehicles are on the street?") == (
        "scene(0). select(1, 0, street). relate(2, 1, vehicle, on, subject). unique(3, 2). query(4, 3, name). end(4)."
    )
    there = _filler(RED_CUP)
    assert there.fill("Are there red cups?") is None  # the bank has "Are there ...?" forms of its own


def test_a_group_asked_for_in_the_plural_is_named_in_the_singular_and_one_referred_to_as_said():
    filler = _filler(MUG_ON_TABLE)
    assert ("group", "animal") in filler.slots("What animals are brown?")
    assert ("group", "animal") in filler.slots("What are these animals called?")
    assert ("group", "vegetables") in filler.slots("What is the color of the bowl near the vegetables?")


def test_a_category_named_by_its_word_stands_for_another_named_so():
    color = _example(
        "c1", "What color is the cup?", "scene(0). select(1, 0, cup). unique(2, 1). query(3, 2, color). end(3)."
    )
    filler = _filler(color)
    assert _filled(filler, "What pattern is the shirt?") == (
        "scene(0). select(1, 0, shirt). unique(2, 1). query(3, 2, pattern). end(3)."
    )
    # a value said ties the program to its category
    assert filler.category_word_form(filler.slots("Is the red cup the same color as the plate?")) is None


def test_words_the_ontology_lacks_that_name_things_are_classes():
    holding = _example(
        "o1",
        "What animal is the man holding?",
        "scene(0). select(1, 0, man). relate(2, 1, animal, holding, object). unique(3, 2). query(4, 3, name). end(4).",
    )
    things = {"weapon", "coffee"}
    filler = TemplateFiller(ExampleBank([holding, RED_CUP]), ONTOLOGY, open_classes=things.__contains__)
    # a class the question asks which kind of is read as a group
    assert _filled(filler, "What weapon is the man holding?") == (
        "scene(0). select(1, 0, man). relate(2, 1, weapon, holding, object). unique(3, 2). query(4, 3, name). end(4)."
    )
    assert _filled(filler, "Is there a red weapon?") == (
        "scene(0). select(1, 0, weapon). filter(2, 1, color, red). exist(3, 2). end(3)."
    )
    # two nouns side by side stay two words: GQA names some by the compound, some by one word
    assert ("thing", "coffee_cup") not in filler.raw_slots("Is there a red coffee cup?")
    # the bank is read without open classes
    assert TemplateFiller(ExampleBank([holding]), ONTOLOGY).fill("What weapon is the man holding?") is None


@pytest.mark.parametrize(
    ("question", "program"),
    [
        # a finite verb after "what kind of" ("does the man hold") is GQA's relation of the participle
        (
            "What kind of fruit does the woman hold?",
            "query(unique(relate(select(scene(), woman), fruit, holding, object)), name)",
        ),
        # an open value (WordNet's adjective) denied after "what kind of"
        (
            "What kind of vehicle is not comfortable?",
            "query(unique(negate(filter_any(select(scene(), vehicle), comfortable), select(scene(), vehicle))), name)",
        ),
        # the weather chosen between two is the scene's, as GQA's programs ask it
        (
            "How is the weather, snowy or foggy?",
            "choose_attr(unique(select(scene(), scene)), weather, snowy, foggy)",
        ),
        ("Is the weather cloudy or sunny?", "choose_attr(unique(select(scene(), scene)), weather, cloudy, sunny)"),
    ],
)
def test_the_default_bank_fills_everyday_forms_without_the_model(question, program):
    from scene.word_kinship import WordNetKinship
    from theory.nested import format_nested
    from translators.examples.bundled import default_bank

    translator = Translator(
        TranslationSettings(sampling="jaccard", llm="replay"), default_bank(), NoModel(), kinship=WordNetKinship()
    )
    result = translator.translate(question)
    assert result.source == "template" and format_nested(result.program) == program
