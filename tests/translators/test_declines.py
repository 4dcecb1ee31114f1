from scene.word_kinship import WordNetKinship
from translators.checks.declines import decline, unwritten
from translators.checks.meaning_checks import Unmeant, WordStems
from translators.wording.ontology import bundled_ontology

STEMS = WordStems.of(bundled_ontology())
KINSHIP = WordNetKinship()


def test_a_question_no_program_was_written_for_names_the_words_the_vocabulary_lacks():
    declined = unwritten("Is the cat indoors or outdoors?", STEMS, KINSHIP)
    assert declined is not None and declined.kind == "inexpressible"
    assert declined.words == ("indoors", "outdoors")
    assert "cannot express 'indoors', 'outdoors'" in declined.message


def test_a_question_of_known_words_leaves_the_failure_to_the_writer():
    assert unwritten("Is the cup white or black?", STEMS, KINSHIP) is None
    # A thing the vocabulary lacks may still be written by a model that is there.
    assert unwritten("Is the trebuchet black?", STEMS, KINSHIP) is None
    assert unwritten("Is the cat indoors or outdoors?", STEMS, None) is None  # without WordNet nothing is ruled out


def test_a_declined_question_names_the_word_no_program_can_say_before_one_the_programs_left_out():
    # The writer read "want" as the thing asked about, so each program left "dog" out.
    unmeant = [Unmeant(("dog",), "the program does not express 'dog'")] * 3
    assert decline(unmeant, "What does the brown dog want?", STEMS).words == ("want",)
    assert decline(unmeant).words == ("dog",)  # without the question's words: what was left out
    assert decline(unmeant, "What does the brown dog hold?", STEMS).words == ("dog",)  # every word known
    wrong = [Unmeant((), "a relation read twice")]
    assert decline(wrong, "Is the cup on the table?", STEMS).reason == "a relation read twice"


def test_a_number_or_an_irregular_plural_is_no_word_the_vocabulary_lacks():
    unmeant = [Unmeant(("umbrella",), "the program does not express 'umbrella'")]
    assert decline(unmeant, "Are two men holding the umbrella?", STEMS).words == ("umbrella",)
