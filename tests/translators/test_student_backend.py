"""`student`: the trained writer as a backend: its ranked programs, one per attempt, and through the
translator's checks."""

from __future__ import annotations

import pytest

from translators.model.backends.base import BackendError, GenerationRequest
from translators.model.backends.registry import STUDENT, get_backend
from translators.model.backends.student import StudentBackend
from translators.model.prompts import build_prompt
from translators.model.student.writer import StudentWriter, Written
from translators.translate import TranslationSettings, Translator
from translators.wording.question_frame import Frame, final_operations


class _Ranked(StudentWriter):
    """A writer whose ranked programs are given, counting how often it is asked."""

    def __init__(self, ranked: list[str]) -> None:
        super().__init__()
        self.ranked = [Written(text, (-0.1 * (i + 1),) * 3) for i, text in enumerate(ranked)]
        self.asked: list[str] = []
        self.answers: list[frozenset[str] | None] = []

    def write(self, question: str, beams: int = 4, said=None, answers=None, sides=None) -> list[Written]:  # noqa: ANN001
        self.asked.append(question)
        self.answers.append(None if answers is None else frozenset(answers))
        return self.ranked


def _request(question: str, repair: tuple[tuple[str, str], ...] = (), asked: str | None = None) -> GenerationRequest:
    return GenerationRequest(build_prompt(question, []), question, repair=repair, asked=asked)


def test_the_registry_names_it() -> None:
    backend = get_backend(STUDENT)
    assert isinstance(backend, StudentBackend) and backend.name == STUDENT


def test_each_repair_gets_the_next_ranked_program_and_the_question_is_read_once() -> None:
    writer = _Ranked(["exist(select(scene(), cat))", "exist(select(scene(), dog))"])
    backend = StudentBackend(writer)
    first = backend.generate(_request("Is there a cat?"))
    assert first.text == "exist(select(scene(), cat))" and first.token_logprobs == (-0.1,) * 3
    second = backend.generate(_request("Is there a cat?", ((first.text, "invented a word"),)))
    assert second.text == "exist(select(scene(), dog))"
    with pytest.raises(BackendError, match="no other program"):
        backend.generate(_request("Is there a cat?", ((first.text, "x"), (second.text, "y"))))
    assert writer.asked == ["Is there a cat?"]


def test_it_reads_the_question_as_the_translator_reads_it() -> None:
    writer = _Ranked(["exist(select(scene(), cat))"])
    StudentBackend(writer).generate(_request("Could you tell me if there is a cat?", asked="Is there a cat?"))
    assert writer.asked == ["Is there a cat?"]
    assert writer.answers == [final_operations(Frame.YES_NO)]


def test_a_choice_is_written_as_a_choice() -> None:
    writer = _Ranked(["choose_attr(unique(select(scene(), cat)), color, white, black)"])
    StudentBackend(writer).generate(_request("Is the cat white or black?"))
    assert writer.answers == [frozenset({"choose_attr", "choose_rel"})]


def test_missing_weights_are_a_backend_error(tmp_path) -> None:  # noqa: ANN001
    backend = StudentBackend(StudentWriter(tmp_path))
    with pytest.raises(BackendError, match="no trained student"):
        backend.generate(_request("Is there a cat?"))
    assert backend.identity.startswith("missing.")


def test_the_translator_takes_its_first_program_that_means_the_question(bank) -> None:  # noqa: ANN001
    # The first program names a word the question does not say; the checks refuse it, and the repair
    # is the student's second-ranked program.
    writer = _Ranked(["exist(select(scene(), dog))", "exist(select(scene(), zebra))"])
    settings = TranslationSettings(llm=STUDENT, template_fill=False, sampling="jaccard")
    translation = Translator(settings, bank, StudentBackend(writer)).translate("Is there a zebra?")
    assert translation.program is not None
    assert translation.flat == "scene(0). select(1, 0, zebra). exist(2, 1). end(2)."
    assert [a.raw for a in translation.attempts] == [w.text for w in writer.ranked]


def test_a_question_no_program_can_mean_is_declined_with_its_word(bank) -> None:  # noqa: ANN001
    # Without a grammar the student's programs are refused for words the question does not say; they
    # are read for the question words they leave out too, so the decline names the word.
    writer = _Ranked(
        [
            "query(unique(select(scene(), place)), name)",
            "query(unique(relate(select(scene(), apple), place, located_in, subject)), name)",
        ]
    )
    settings = TranslationSettings(llm=STUDENT, template_fill=False, sampling="jaccard")
    translation = Translator(settings, bank, StudentBackend(writer)).translate("Which country grows the apples?")
    assert translation.program is None and translation.unsupported is not None
    assert "country" in (translation.error or "")


def test_the_translator_tells_the_student_which_words_may_name_things(bank) -> None:  # noqa: ANN001
    from scene.word_kinship import WordNetKinship

    class _Recording(StudentBackend):
        def generate(self, request: GenerationRequest):  # noqa: ANN202
            self.things = request.things
            return super().generate(request)

    backend = _Recording(_Ranked(["exist(select(scene(), staircase))"]))
    settings = TranslationSettings(llm=STUDENT, template_fill=False, sampling="jaccard")
    Translator(settings, bank, backend, kinship=WordNetKinship()).translate("Is there a staircase?")
    assert backend.things == ("staircase",)
