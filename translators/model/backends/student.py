"""The trained student as a backend (``ASPVQA_LLM=student``): the question in, its likeliest program
out, a refused program's repair being the student's next-ranked program.

It reads the question, not the prompt: the retrieved examples a language model is shown are what
the student learnt from. It takes no grammar; the translator's parser and checks judge its output.
"""

from __future__ import annotations

import threading
import time

from theory.errors import ModelNotAvailableError
from translators.model.backends.base import Backend, BackendError, Generation, GenerationRequest
from translators.model.student.stand_ins import STAND_INS_VERSION, stand_ins
from translators.model.student.writer import SEARCH_VERSION, StudentWriter, Written
from translators.wording.grounded_words import question_words, sides_of_or
from translators.wording.question_frame import final_operations, frame_of

# Programs ranked per question: the first, then one per repair the translator asks for.
BEAMS = 4


class StudentBackend(Backend):
    """The student's programs, ranked by its beam search, one per attempt."""

    name = "student"  # as the registry spells it (`registry.STUDENT`)
    supports_grammar = False
    grammar_field = None

    def __init__(self, writer: StudentWriter | None = None) -> None:
        self.writer = writer or StudentWriter()
        self._last: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], list[Written]] | None = None
        self._lock = threading.Lock()

    @property
    def identity(self) -> str:
        """The trained weights' digest, the search's and the stand-ins' versions: a translation cached
        with others is not reused."""
        return f"{self.writer.digest()}.{SEARCH_VERSION}.{STAND_INS_VERSION}"

    def prepare(self) -> None:
        """Load the weights and the question's token graph (exported on the first use ever)."""
        try:
            self.writer.load()
        except ModelNotAvailableError as exc:
            raise BackendError(str(exc)) from exc

    def _ranked(self, question: str, things: tuple[str, ...], values: tuple[str, ...] = ()) -> list[Written]:
        """The ranked programs of `question` (the things of `things` and the values of `values` it cannot
        name stood in and put back); the last question's are kept for its repairs."""
        with self._lock:
            if self._last is not None and self._last[0] == (question, things, values):
                return self._last[1]
        try:
            swapped = stand_ins(question, things, self.writer.known(), values)
            words = question_words(swapped.asked)
            written = self.writer.write(
                swapped.asked,
                BEAMS,
                lambda w: words.supports(w) or words.supports_relation(w),
                # Programs the checks would refuse are not written: an answer the frame does not ask for
                # ("... looking down or posing?" ended in `or`), a choice between words not offered.
                final_operations(frame_of(swapped.asked)),
                sides_of_or(words),
            )
        except ModelNotAvailableError as exc:
            raise BackendError(str(exc)) from exc
        restored = ((swapped.restore(w.text), w.token_logprobs) for w in written)
        ranked = [Written(text, logprobs) for text, logprobs in restored if text is not None]
        with self._lock:
            self._last = ((question, things, values), ranked)
        return ranked

    def generate(self, request: GenerationRequest) -> Generation:
        """The attempt's program: the next-ranked one not already refused."""
        start = time.perf_counter()
        question = request.asked or request.question
        refused = {output for output, _ in request.repair}
        left = [w for w in self._ranked(question, request.things, request.values) if w.text not in refused]
        if not left:
            raise BackendError(f"the student has no other program for this question after {len(refused)} refused")
        chosen = left[0]
        return Generation(
            text=chosen.text,
            seconds=time.perf_counter() - start,
            model=self.name,
            completion_tokens=len(chosen.token_logprobs),
            token_logprobs=chosen.token_logprobs,
            allowed_logprobs=chosen.token_logprobs,
        )
