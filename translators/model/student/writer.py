"""The trained student run with NumPy: a question's token states in, its likeliest programs out.

The pre-norm Transformer layers of `translators.model.student.network` are written out here over the
saved float16 weights (NumPy has no Transformer layer, and importing PyTorch would add two seconds
to every start for a network this small). A beam search keeps to programs the operations' signatures
allow (`call_grammar`); the translator's parser and checks judge the rest, and a refused program's
next-ranked rival is the repair.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from theory.errors import ModelNotAvailableError
from theory.operations import OPERATIONS
from translators.model.student.call_grammar import CallGrammar, CallState, Offered
from translators.model.student.encoder import TokenStates
from translators.model.student.vocabulary import END, SPECIALS, START, ProgramVocabulary, program_text
from translators.wording.grounded_words import singular

WEIGHTS_DIR = Path(__file__).resolve().parents[2] / "data" / "student"
# The beam search's rules (when it stops, the grammar it keeps to): part of the translation cache key.
SEARCH_VERSION = "search-5"
# Live beams the search keeps, whatever the number of programs asked for: with four, likelier short
# programs that leave a word of the question out crowd out the longer one meant, which the ranking by
# per-token likelihood would put first.
SEARCH_WIDTH = 8
# The training steps (batches of 64 pairs, about two and a half passes) the shipped weights were trained for.
DEFAULT_STEPS = 3500
_EPSILON = 1e-5  # PyTorch's LayerNorm default
_WORD = re.compile(r"[a-z]+")


@dataclass(frozen=True)
class Written:
    """One program the student wrote: its text and each token's log-probability (END's included)."""

    text: str
    token_logprobs: tuple[float, ...]

    @property
    def logprob(self) -> float:
        """The whole program's log-probability."""
        return float(sum(self.token_logprobs))

    @property
    def per_token(self) -> float:
        """The mean log-probability of its tokens: what the programs are ranked by."""
        return self.logprob / max(1, len(self.token_logprobs))


def _norm(x: np.ndarray, w: dict[str, np.ndarray], name: str) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + _EPSILON) * w[f"{name}.weight"] + w[f"{name}.bias"]


def _with_transposed(weights: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The weights with a contiguous transposed copy of each matrix (``NAME^T``; an attention's packed
    input projection split by queries, keys and values, ``NAME^T0..2``): NumPy multiplies by a
    transposed view several times slower than by a contiguous matrix."""
    out = dict(weights)
    for name, value in weights.items():
        if value.ndim != 2 or name == "position.weight":
            continue
        if name.endswith("in_proj_weight"):
            for part, rows in enumerate(np.split(value, 3)):
                out[f"{name}^T{part}"] = np.ascontiguousarray(rows.T)
        else:
            out[f"{name}^T"] = np.ascontiguousarray(value.T)
    return out


def _word_tokens(folder: Path, vocabulary: ProgramVocabulary) -> dict[int, str]:
    """The tokens that name a class, value or relation (id -> token): those the question must say.
    Without the weights' structure file (weights saved before it) none are told apart."""
    path = folder / "structure.json"
    if not path.exists():
        return {}
    fixed = set(SPECIALS) | {"(", ")", ","} | set(OPERATIONS) | set(json.loads(path.read_text(encoding="utf-8")))
    return {i: token for i, token in enumerate(vocabulary.tokens) if token not in fixed}


def parts_of_longer_names(question: str, names: Iterable[str]) -> set[str]:
    """The one-word names the question says only inside a longer one of `names` ("train" and "car"
    of "the train car" when `train_car` is one): a program naming them alone leaves a word of the
    question unmeant, and the translator's check refuses it."""
    surface = _WORD.findall(question.lower())
    covered: set[int] = set()
    for name in names:
        parts = name.split("_")
        if len(parts) < 2:
            continue
        for start in range(len(surface) - len(parts) + 1):
            if surface[start : start + len(parts)] == parts:
                covered.update(range(start, start + len(parts)))
    inside = {surface[i] for i in covered}
    return {word for word in inside if all(i in covered for i, w in enumerate(surface) if w == word)}


def _settled(done: list[tuple[list[int], list[float]]], alive: list[list[float]], beams: int) -> bool:
    """Whether the search is over: `beams` programs are finished and no live beam can beat the last
    of them (a beam's log-probability only falls as it grows). Stopping at the first `beams` finished
    would miss a longer program likelier than a short one that ended first ("Is the bus behind the
    other bus white and rectangular?" reads the described bus twice)."""
    if len(done) < beams:
        return False
    last = sorted((sum(logprobs) for _, logprobs in done), reverse=True)[beams - 1]
    return all(sum(logprobs) <= last for logprobs in alive)


def ranked(written: Iterable[Written], beams: int) -> list[Written]:
    """The `beams` programs of `written` whose tokens are likeliest on average, likeliest first."""
    return sorted(written, key=lambda w: -w.per_token)[:beams]


def _softmax(x: np.ndarray) -> np.ndarray:
    x = x - x.max(-1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(-1, keepdims=True)


def _log_softmax(x: np.ndarray) -> np.ndarray:
    x = x - x.max(-1, keepdims=True)
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


class StudentWriter:
    """The student's weights, loaded on first use from `folder`."""

    def __init__(self, folder: Path = WEIGHTS_DIR, reader: TokenStates | None = None) -> None:
        self.folder = folder
        self.reader = reader or TokenStates()
        self._weights: dict[str, np.ndarray] | None = None
        self._lock = threading.Lock()

    @staticmethod
    def available(folder: Path = WEIGHTS_DIR) -> bool:
        """Whether trained weights are in `folder`."""
        return all((folder / name).exists() for name in ("weights.npz", "shape.json", "vocabulary.json"))

    def digest(self) -> str:
        """A digest of the weight files ("missing" without them)."""
        if not self.available(self.folder):
            return "missing"
        digest = hashlib.sha256()
        for name in ("weights.npz", "shape.json", "vocabulary.json", "structure.json"):
            if not (self.folder / name).exists():
                continue
            digest.update((self.folder / name).read_bytes())
        return digest.hexdigest()[:12]

    def _load(self) -> dict[str, np.ndarray]:
        with self._lock:
            if self._weights is None:
                if not self.available(self.folder):
                    raise ModelNotAvailableError(
                        f"no trained student in {self.folder}: `aspvqa student train` writes one"
                    )
                with np.load(self.folder / "weights.npz") as saved:
                    self._weights = _with_transposed({name: saved[name].astype(np.float32) for name in saved.files})
                self.shape = json.loads((self.folder / "shape.json").read_text(encoding="utf-8"))
                self.vocabulary = ProgramVocabulary.load(self.folder / "vocabulary.json")
                index = self.vocabulary.index
                self._start, self._end = index[START], index[END]
                self._grammar = CallGrammar(self.vocabulary.tokens)
                self._words = _word_tokens(self.folder, self.vocabulary)
                self._known = frozenset(self.vocabulary.tokens) - {*SPECIALS, "(", ")", ","}
        return self._weights

    def known(self) -> frozenset[str]:
        """Every name and constant the student can write (its vocabulary but the specials and punctuation)."""
        self._load()
        return self._known

    def _projected(self, w: dict[str, np.ndarray], name: str, x: np.ndarray, part: int) -> np.ndarray:
        """Queries (0), keys (1) or values (2) of PyTorch's MultiheadAttention `name`, split by head:
        (batch, T, d) -> (batch, heads, T, d / heads)."""
        d, heads = x.shape[-1], self.shape["heads"]
        offset = w[f"{name}.in_proj_bias"]
        t = x @ w[f"{name}.in_proj_weight^T{part}"] + offset[part * d : (part + 1) * d]
        return t.reshape(t.shape[0], t.shape[1], heads, d // heads).transpose(0, 2, 1, 3)

    def _attended(self, w: dict[str, np.ndarray], name: str, q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Split queries over split keys and values, merged and projected out: (batch, T, d)."""
        scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(q.shape[-1])
        mixed = _softmax(scores) @ v
        batch, heads, length, part = mixed.shape
        merged = mixed.transpose(0, 2, 1, 3).reshape(batch, length, heads * part)
        return merged @ w[f"{name}.out_proj.weight^T"] + w[f"{name}.out_proj.bias"]

    def _feed_forward(self, w: dict[str, np.ndarray], name: str, x: np.ndarray) -> np.ndarray:
        hidden = np.maximum(x @ w[f"{name}.linear1.weight^T"] + w[f"{name}.linear1.bias"], 0.0)
        return hidden @ w[f"{name}.linear2.weight^T"] + w[f"{name}.linear2.bias"]

    def _memory(self, w: dict[str, np.ndarray], states: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """The question read by the encoder layers, as each decoder layer's cross-attention keys and values."""
        x = states @ w["adapter.weight^T"] + w["adapter.bias"]
        for layer in range(self.shape["encoder_layers"]):
            name = f"encoder.layers.{layer}.self_attn"
            h = _norm(x, w, f"encoder.layers.{layer}.norm1")
            x = x + self._attended(w, name, *(self._projected(w, name, h, part) for part in range(3)))
            x = x + self._feed_forward(w, f"encoder.layers.{layer}", _norm(x, w, f"encoder.layers.{layer}.norm2"))
        names = [f"decoder.layers.{layer}.multihead_attn" for layer in range(self.shape["decoder_layers"])]
        return [(self._projected(w, name, x, 1), self._projected(w, name, x, 2)) for name in names]

    def _step(
        self,
        w: dict[str, np.ndarray],
        memory: list[tuple[np.ndarray, np.ndarray]],
        cache: list[tuple[np.ndarray, np.ndarray]],
        tokens: np.ndarray,
        position: int,
    ) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
        """The next token's log-probabilities (beams, vocabulary) after each beam's newest token, and each
        decoder layer's self-attention keys and values with that token's added (written once, not per step)."""
        x = (w["embed.weight"][tokens] * np.sqrt(self.shape["width"]) + w["position.weight"][position])[:, None]
        grown = []
        for layer, ((cross_k, cross_v), (keys, values)) in enumerate(zip(memory, cache)):
            name = f"decoder.layers.{layer}"
            h = _norm(x, w, f"{name}.norm1")
            keys = np.concatenate([keys, self._projected(w, f"{name}.self_attn", h, 1)], axis=2)
            values = np.concatenate([values, self._projected(w, f"{name}.self_attn", h, 2)], axis=2)
            grown.append((keys, values))
            x = x + self._attended(w, f"{name}.self_attn", self._projected(w, f"{name}.self_attn", h, 0), keys, values)
            q = self._projected(w, f"{name}.multihead_attn", _norm(x, w, f"{name}.norm2"), 0)
            x = x + self._attended(w, f"{name}.multihead_attn", q, cross_k, cross_v)
            x = x + self._feed_forward(w, name, _norm(x, w, f"{name}.norm3"))
        last = _norm(x[:, 0], w, "norm")
        return _log_softmax(last @ w["embed.weight^T"]), grown

    def _empty_cache(self, beams: int) -> list[tuple[np.ndarray, np.ndarray]]:
        heads, width = self.shape["heads"], self.shape["width"]
        empty = np.zeros((beams, heads, 0, width // heads), dtype=np.float32)
        return [(empty, empty) for _ in range(self.shape["decoder_layers"])]

    def prefix_logprobs(self, states: np.ndarray, prefix: list[int]) -> np.ndarray:
        """The log-probabilities of the token after `prefix` (START first) for one question's states."""
        w = self._load()
        memory, cache = self._memory(w, states), self._empty_cache(1)
        for position, token in enumerate(prefix):
            logprobs, cache = self._step(w, memory, cache, np.array([token]), position)
        return logprobs[0]

    def load(self) -> None:
        """Load the weights and the question reader's graph now (exported on its first use ever)."""
        self._load()
        self.reader.load()

    def _unsaid(self, question: str, said: Callable[[str], bool] | None) -> np.ndarray:
        """-inf on the word tokens `said` refuses (the question does not say them) and on the words
        the question says only inside a longer name it says (`parts_of_longer_names`), in the
        singular or the plural, else 0."""
        mask = np.zeros(len(self.vocabulary.tokens), dtype=np.float32)
        if said is not None:
            allowed = {i: token for i, token in self._words.items() if said(token)}
            parts = {singular(part) for part in parts_of_longer_names(question, allowed.values())}
            refused = [i for i, token in self._words.items() if i not in allowed or singular(token) in parts]
            mask[refused] = -np.inf
        return mask

    def _offered(self, sides: tuple[Collection[str], Collection[str]] | None) -> Offered | None:
        """The word tokens said on each side of the question's "or", in either number."""
        if sides is None:
            return None
        masks = []
        for side in sides:
            mask = np.zeros(len(self.vocabulary.tokens), dtype=bool)
            mask[[i for i, token in self._words.items() if singular(token) in side]] = True
            masks.append(mask)
        return Offered(*masks)

    def write(
        self,
        question: str,
        beams: int = 4,
        said: Callable[[str], bool] | None = None,
        answers: Collection[str] | None = None,
        sides: tuple[Collection[str], Collection[str]] | None = None,
    ) -> list[Written]:
        """The `beams` likeliest programs of `question` by their tokens' mean log-probability, likeliest
        first (a whole program's favours the shortest; the mean is the plainest length normalisation);
        with `said`, only programs
        whose classes, values and relations it accepts (the words of the question, as the
        translator's grammar allows a language model); with `answers`, only programs ending in one
        of those operations (what the question's frame allows); with `sides` (the names said before and
        after the question's "or", in the singular), a choice only between one of each."""
        w = self._load()
        width = max(beams, SEARCH_WIDTH)
        unsaid = self._unsaid(question, said)
        states, _ = self.reader.states([question])
        memory = self._memory(w, states)
        limit = self.shape["max_tokens"]
        # Per live beam: token ids, per-token log-probabilities, where it is in the program; and the layers' cache.
        grammar = self._grammar
        alive: list[tuple[list[int], list[float], CallState]] = [
            ([self._start], [], grammar.start(answers, self._offered(sides)))
        ]
        cache = self._empty_cache(1)
        done: list[tuple[list[int], list[float]]] = []
        while alive and not _settled(done, [logprobs for _, logprobs, _ in alive], width):
            newest = np.array([ids[-1] for ids, _, _ in alive], dtype=np.int64)
            scores, cache = self._step(w, memory, cache, newest, len(alive[0][0]) - 1)
            grown: list[tuple[float, int, list[int], list[float], CallState]] = []
            for parent, ((ids, logprobs, state), row) in enumerate(zip(alive, scores)):
                row = np.where(grammar.mask(state), row + unsaid, -np.inf)
                for token in np.argsort(row)[::-1][:width]:
                    if not np.isfinite(row[token]):
                        break
                    value = float(row[token])
                    after = grammar.advance(state, int(token))
                    grown.append((sum(logprobs) + value, parent, [*ids, int(token)], [*logprobs, value], after))
            grown.sort(key=lambda g: -g[0])
            alive, parents = [], []
            for _, parent, ids, logprobs, state in grown[:width]:
                if ids[-1] == self._end:
                    done.append((ids, logprobs))
                elif len(ids) < limit:
                    alive.append((ids, logprobs, state))
                    parents.append(parent)
            cache = [(keys[parents], values[parents]) for keys, values in cache]
        tokens = self.vocabulary.tokens
        return ranked([Written(program_text(tokens[i] for i in ids[1:-1]), tuple(lp)) for ids, lp in done], beams)
