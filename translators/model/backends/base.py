"""The backend interface: a request (prompt, limits, optional grammar) in, generated text out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from translators.errors import TranslatorError
from translators.model.prompts import Prompt


class BackendError(TranslatorError, RuntimeError):
    """The model could not be asked (missing model, server error, no recorded output)."""


class RetryableBackendError(BackendError):
    """A failure that may pass if asked again later (rate limit, server error, timeout, dropped
    connection) and that outlasted the backend's own retries; never a final answer."""


@dataclass(frozen=True)
class GenerationRequest:
    """What to generate. `question` and `attempt` identify the call for replay and caching.

    `repair` holds (bad output, error message) pairs from earlier attempts, oldest first; a
    backend shows them to the model after the prompt so it can correct itself.
    """

    prompt: Prompt
    question: str
    max_tokens: int = 256
    temperature: float = 0.0
    seed: int = 0
    grammar: str | None = None
    stop: tuple[str, ...] = ()
    attempt: int = 0
    sample: int = 0
    repair: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    # The question as the translator reads it (asked directly, image phrases as the scene), for a
    # backend that reads the question rather than the prompt (the student).
    asked: str | None = None
    # The words of `asked` that may name a thing (WordNet's reading), for a writer with a closed
    # vocabulary to stand a name it knows in for one it never learnt (the student's stand-ins).
    things: tuple[str, ...] = ()
    # Likewise the words (and "_"-joined runs) of `asked` that may be attribute values ("dull").
    values: tuple[str, ...] = ()

    def messages(self) -> list[dict[str, str]]:
        """Chat messages: the prompt, then each failed attempt and the error it caused."""
        messages = list(self.prompt.messages)
        for output, error in self.repair:
            messages.append({"role": "assistant", "content": output})
            messages.append({"role": "user", "content": repair_instruction(error)})
        return messages

    def completion(self) -> str:
        """The completion-layout text, with earlier failures appended as comments."""
        text = self.prompt.completion
        for output, error in self.repair:
            text += f"{output}\n% {repair_instruction(error)}\nProgram: "
        return text


def repair_instruction(error: str) -> str:
    """The message that feeds an error back to the model."""
    return f"That program is not valid: {error}. Write the corrected program only."


@dataclass(frozen=True)
class Generation:
    """Generated text and what it cost."""

    text: str
    seconds: float
    model: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    # Where the runtime reports them (llama.cpp): prompt tokens evaluated for this call (the rest came
    # from the cached prefix) and the seconds spent reading the prompt and writing the output.
    evaluated_tokens: int | None = None
    prompt_seconds: float | None = None
    output_seconds: float | None = None
    # The model's own log-probability of each token it wrote (before the grammar masked any), where
    # the backend can read its logits; the last token is not included.
    token_logprobs: tuple[float, ...] | None = None
    # Each chosen token's log-probability among the tokens the grammar allowed (the last one
    # included), where the backend applies the grammar itself (llama.cpp's greedy path); a token
    # the grammar forces is sure, or nearly, here.
    allowed_logprobs: tuple[float, ...] | None = None


class Backend(Protocol):
    """Anything that turns a `GenerationRequest` into a `Generation`; a backend subclasses it for the
    defaults of the optional members."""

    name: str
    supports_grammar: bool
    # The request field a grammar travels in to a server; "local" for a model in this process.
    grammar_field: str | None = "local"
    # Whether the backend keeps the evaluated prompt prefix between calls (llama.cpp), so that
    # evaluating the fixed part once (`warm`) saves every later call that time.
    keeps_prefix: bool = False
    # Whether `warm` also keeps that state on disk and reads it back on a later start, so that
    # warming at the first question costs a read, not a generation.
    saves_prefix: bool = False
    # False only for ``none`` (`NoModel`): the translator then neither retrieves examples nor asks it.
    writes_programs: bool = True

    def generate(self, request: GenerationRequest) -> Generation: ...

    def prepare(self) -> None:
        """Load what the first call needs (weights, graphs), so a warmed service does not load it
        then; nothing by default (a model loads on its first call or in `warm`)."""
        return None

    def warm(self, request: GenerationRequest) -> object:
        """Evaluate the request's prompt so that later calls start from it; a plain call by default."""
        return self.generate(request)
