"""The student run with NumPy against the same network in PyTorch, and the shipped weights."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from theory.nested import parse_nested
from theory.program import ProgramError
from translators.model.student.vocabulary import ProgramVocabulary
from translators.model.student.writer import StudentWriter

torch = pytest.importorskip("torch", reason="training the student needs PyTorch (the llm extra)")


class _States:
    """Token states of a fixed random question, in place of MiniLM's."""

    def __init__(self, states: np.ndarray) -> None:
        self.value = states

    def states(self, questions: list[str]) -> tuple[np.ndarray, np.ndarray]:
        return self.value, np.ones(self.value.shape[:2], dtype=bool)


def _tiny(tmp_path: Path) -> tuple[object, StudentWriter, np.ndarray]:
    from translators.model.student.network import Shape, Student
    from translators.model.student.training import save_weights

    torch.manual_seed(3)
    vocabulary = ProgramVocabulary.build([["exist", "(", "select", "scene", ")", ",", "cat", "dog"]])
    model = Student(Shape(vocabulary=len(vocabulary.tokens), states=12, width=16, heads=2, feed_forward=24)).eval()
    # float16 weights, as saved: the PyTorch side runs the same rounded values.
    with torch.no_grad():
        for value in model.parameters():
            value.copy_(value.half().float())
    save_weights(model, vocabulary, tmp_path)
    states = np.random.default_rng(0).normal(size=(1, 5, 12)).astype(np.float32)
    writer = StudentWriter(tmp_path, _States(states))
    writer._load()
    return model, writer, states


def test_beam_programs_are_ranked_and_balanced(tmp_path: Path) -> None:
    _, writer, _ = _tiny(tmp_path)
    for program in writer.write("any question", beams=3):
        assert program.text.count("(") == program.text.count(")")
        assert all(lp <= 0 for lp in program.token_logprobs)


def test_numpy_gives_pytorchs_next_token_probabilities(tmp_path: Path) -> None:
    model, writer, states = _tiny(tmp_path)
    prefix = [1, 4, 5, 6, 5]
    ours = writer.prefix_logprobs(states, prefix)
    with torch.no_grad():
        logits = model(torch.from_numpy(states), torch.ones(1, 5, dtype=torch.bool), torch.tensor([prefix]))
    theirs = torch.log_softmax(logits[0, -1], -1).numpy()
    np.testing.assert_allclose(ours, theirs, atol=1e-4)


def test_a_learnt_program_is_written_back_first(tmp_path: Path) -> None:
    model, writer, states = _tiny(tmp_path)
    from translators.model.student.training import save_weights
    from translators.model.student.vocabulary import program_tokens

    text = "exist(select(scene(), cat))"
    ids = torch.tensor([writer.vocabulary.ids(program_tokens(text))])
    optimiser = torch.optim.Adam(model.parameters(), lr=0.01)
    model.train()
    for _ in range(150):
        logits = model(torch.from_numpy(states), torch.ones(1, 5, dtype=torch.bool), ids[:, :-1])
        loss = torch.nn.functional.cross_entropy(logits[0], ids[0, 1:])
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
    save_weights(model.eval(), writer.vocabulary, tmp_path)
    written = StudentWriter(tmp_path, writer.reader).write("any question", beams=3)
    assert written[0].text == text
    assert [w.per_token for w in written] == sorted((w.per_token for w in written), reverse=True)


def test_a_longer_program_of_likelier_tokens_is_ranked_first() -> None:
    from translators.model.student.writer import Written, ranked

    short = Written("exist(select(scene(), cat))", (-0.5, -0.5, -0.2))
    meant = Written("exist(relate(select(scene(), dog), cat, near, subject))", (-0.15,) * 10)
    assert short.logprob > meant.logprob  # likelier as a whole, less likely token by token
    assert ranked([short, meant], 2) == [meant, short]
    assert ranked([short, meant], 1) == [meant]


def test_no_weights_is_a_clear_error(tmp_path: Path) -> None:
    from theory.errors import ModelNotAvailableError

    assert not StudentWriter.available(tmp_path)
    with pytest.raises(ModelNotAvailableError, match="aspvqa student train"):
        StudentWriter(tmp_path).write("Is there a cat?")


@pytest.mark.skipif(not StudentWriter.available(), reason="no trained student in translators/data/student")
def test_shipped_student_writes_a_plain_question() -> None:
    pytest.importorskip("onnxruntime", reason="the question's token states run on ONNX Runtime")
    written = StudentWriter().write("Is there a cat in the picture?")
    programs = []
    for w in written:
        try:
            programs.append(parse_nested(w.text))
        except ProgramError:
            continue
    assert any(p.step(p.answer).operation == "exist" for p in programs), [w.text for w in written]


def test_the_search_goes_on_while_a_live_beam_can_beat_a_finished_one() -> None:
    from translators.model.student.writer import _settled

    done = [([1, 2], [-1.0]), ([1, 3], [-5.0])]
    assert not _settled(done, [[-0.5, -0.1]], beams=2)  # a longer program may still be likelier
    assert _settled(done, [[-4.0, -2.0]], beams=2)
    assert not _settled(done[:1], [[-9.0]], beams=2)  # fewer finished than asked for
    assert _settled(done, [], beams=2)


@pytest.mark.skipif(not StudentWriter.available(), reason="no trained student in translators/data/student")
def test_shipped_student_reads_a_described_object_twice_when_that_is_likelier() -> None:
    # Two checks of "the bus behind the other bus": the likeliest program describes it in both; a
    # search that stopped at the first finished programs returned a shorter, far less likely one.
    pytest.importorskip("onnxruntime", reason="the question's token states run on ONNX Runtime")
    from translators.wording.grounded_words import question_words

    question = "Does the bus behind the other bus look white and rectangular?"
    words = question_words(question)
    written = StudentWriter().write(question, 4, lambda w: words.supports(w) or words.supports_relation(w))
    described = "unique(relate(select(scene(), bus), bus, behind, subject))"
    assert written[0].text.count(described) == 2, written[0].text
