"""Greedy grammar-constrained decoding for llama.cpp, checked lazily and drafted from the prompt.

llama-cpp-python samples every token through a chain that applies the grammar to all of the
vocabulary (151,936 tokens for Qwen: about 18 ms a token on 2 cores), and its prompt-lookup
drafts need logits for every prompt token. At temperature 0 neither is needed:

- the grammar only has to say yes to the likeliest token; only when it says no is it applied to
  the whole vocabulary (llama.cpp's own common sampler does the same), so the chosen token is the
  one the full chain would choose;
- drafts are copied from the prompt (a program repeats the question's words and the examples'
  operations): the tokens after the longest n-gram (two tokens at least) that ends the text so
  far and occurs earlier.
  The drafts are evaluated in one batch with logits for them alone, and kept while each is the
  token the model chooses; the first one it does not choose, and every draft after it, is
  dropped from the cache. Drafts stop before an end token: the row after it is never read;
- where the grammar allows nothing but an end of generation (a program is whole), the text ends
  without evaluating its last token: that step chose among end tokens only. On the tuning part's
  57 model questions, alternating with the code before, writing took 36.4 s instead of 41.0 s
  (the whole translation 1.5 % less), with the same 57 programs.

Greedy output is the one the sampler chain gives, up to the last bits of the logits a batch may
compute differently from one token at a time. `SpeculativeLlama.generate` is what
`Llama.create_completion` calls; other sampling settings go to llama-cpp-python's own loop.
This module imports llama_cpp: it is imported only where the local backend loads a model.
"""

from __future__ import annotations

import ctypes
import itertools
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import llama_cpp
import numpy as np
from llama_cpp import Llama, LlamaGrammar

# Drafted tokens per batch and the n-grams looked up, chosen on the model's prompts of 24 tuning-part
# questions on 2 cores. A batch of 1, 2, 3, 4, 6 tokens costs 74, 110, 137, 140, 196 ms after a
# 1,100-token prompt; replaying the greedy outputs, writing took 1.18 s without drafts, 0.81 s with
# 3 drafts after any matching n-gram, 0.76 s after a match of at least two tokens (one token alone
# matches too often by chance), 0.94 s with 2 drafts and 0.91 s with 5.
DRAFT_TOKENS = 3
LONGEST_NGRAM = 4
SHORTEST_NGRAM = 2
# Rivals of a chosen token that is the likeliest of all, asked of the grammar one by one: the
# likeliest this many, ten one-token checks a step against a 60-70 ms step.
ALLOWED_AMONG = 10
_NEUTRAL = {"repeat_penalty": 1.0, "frequency_penalty": 0.0, "presence_penalty": 0.0, "mirostat_mode": 0}


@dataclass
class DecodingStats:
    """What the last greedy generation cost: prompt tokens evaluated and seconds on them, seconds
    writing the output, and the drafted tokens tried and kept."""

    evaluated: int = 0
    prompt_s: float = 0.0
    output_s: float = 0.0
    drafted: int = 0
    accepted: int = 0
    ended: bool = False  # ended where the program was whole, without logits for the end token
    # Each chosen token's log-probability among the tokens the grammar allowed (`GrammarCheck.choose`),
    # a token the stopping criteria then refuse included.
    allowed_logprobs: list[float] = field(default_factory=list)


class GrammarCheck:
    """A grammar's state over the tokens accepted so far, asked about one token at a time."""

    def __init__(self, llama: Llama, grammar: LlamaGrammar) -> None:
        vocab = self._vocab = llama._model.vocab
        self._sampler = llama_cpp.llama_sampler_init_grammar(vocab, grammar._grammar.encode(), grammar._root.encode())
        if not self._sampler:
            raise ValueError("llama.cpp could not compile the grammar")
        self._one = (llama_cpp.llama_token_data * 1)()
        self._one_array = llama_cpp.llama_token_data_array(
            data=ctypes.cast(self._one, llama_cpp.llama_token_data_p), size=1, selected=-1, sorted=False
        )
        self._all = np.zeros(llama.n_vocab(), dtype=[("id", np.intc), ("logit", np.single), ("p", np.single)])
        self._all_array = llama_cpp.llama_token_data_array(
            data=self._all.ctypes.data_as(llama_cpp.llama_token_data_p), size=len(self._all), selected=-1, sorted=False
        )
        self._ids = np.arange(len(self._all), dtype=np.intc)

    def allows(self, token: int) -> bool:
        """Whether the grammar lets `token` come next."""
        self._one[0] = llama_cpp.llama_token_data(token, 0.0, 0.0)
        self._one_array.size, self._one_array.selected, self._one_array.sorted = 1, -1, False
        llama_cpp.llama_sampler_apply(self._sampler, ctypes.byref(self._one_array))
        return bool(np.isfinite(self._one[0].logit))

    def choose(self, logits: np.ndarray) -> tuple[int, float]:
        """The likeliest token the grammar allows (the first of equally likely ones, as llama.cpp's
        greedy sampler), and its log-probability among the tokens the grammar allows.

        A token the grammar forces (`scene` where only `scene` may come) is then sure, or nearly (a
        literal may also be spelt in smaller pieces): the model's own doubt about it is the grammar's
        business, not a doubt about the program. Where the likeliest token of all is allowed, its
        rivals are the allowed ones of the `ALLOWED_AMONG` likeliest; where it is not, the grammar
        is asked about the whole vocabulary to choose, and the share is read among all it allows.
        """
        top = int(np.argmax(logits))
        if self.allows(top):
            return top, self._share_among_likeliest(logits, top)
        self._all["id"] = self._ids
        self._all["logit"] = logits
        self._all_array.size, self._all_array.selected, self._all_array.sorted = len(self._all), -1, False
        llama_cpp.llama_sampler_apply(self._sampler, ctypes.byref(self._all_array))
        size = self._all_array.size  # the grammar keeps the array in place; read what it left
        masked = self._all[:size]
        chosen = int(np.argmax(masked["logit"]))
        allowed = masked["logit"][np.isfinite(masked["logit"])].astype(np.float64)
        return int(masked["id"][chosen]), _log_share(float(masked["logit"][chosen]), allowed)

    def _share_among_likeliest(self, logits: np.ndarray, token: int) -> float:
        """`token`'s log-probability among itself and the allowed ones of the `ALLOWED_AMONG` likeliest.
        Allowed tokens past those are each less likely than the last of them, so the value may be a
        little high."""
        among = min(ALLOWED_AMONG, len(logits))
        likeliest = np.argpartition(logits, -among)[-among:]
        rivals = [int(t) for t in likeliest if int(t) != token and self.allows(int(t))]
        return _log_share(float(logits[token]), np.append(logits[rivals], logits[token]).astype(np.float64))

    def accept(self, token: int) -> None:
        """Advance the grammar over `token`."""
        llama_cpp.llama_sampler_accept(self._sampler, token)

    def only_ends(self) -> bool:
        """Whether the grammar allows nothing now but an end of generation (asks the whole
        vocabulary: about 10 ms for Qwen's; `allows` of an end token first is the cheap test)."""
        self._all["id"] = self._ids
        self._all["logit"] = 0.0
        self._all_array.size, self._all_array.selected, self._all_array.sorted = len(self._all), -1, False
        llama_cpp.llama_sampler_apply(self._sampler, ctypes.byref(self._all_array))
        kept = self._all[: self._all_array.size]
        allowed = kept["id"][np.isfinite(kept["logit"])]
        return all(self.is_end(int(token)) for token in allowed)

    def is_end(self, token: int) -> bool:
        """Whether `token` ends a generation (an end-of-generation token of the model's vocabulary)."""
        return bool(llama_cpp.llama_vocab_is_eog(self._vocab, token))

    def close(self) -> None:
        if self._sampler:
            llama_cpp.llama_sampler_free(self._sampler)
            self._sampler = None

    def __del__(self) -> None:
        self.close()


def _log_share(logit: float, allowed: np.ndarray) -> float:
    """log(exp(logit) / sum(exp(allowed))), computed without overflow; `allowed` holds `logit` itself."""
    # By hand (scipy.special.logsumexp, three lines): the decoding path imports numpy only.
    top = float(allowed.max())
    return float(logit - top - np.log(np.exp(allowed - top).sum()))


def draft(
    history: Sequence[int], count: int = DRAFT_TOKENS, longest: int = LONGEST_NGRAM, shortest: int = SHORTEST_NGRAM
) -> list[int]:
    """Up to `count` tokens that followed the latest earlier occurrence of the longest n-gram
    (`shortest` to `longest` tokens) that ends `history`; [] when none occurs earlier.

    >>> draft([5, 1, 2, 3, 9, 1, 2], count=2)
    [3, 9]
    >>> draft([5, 1, 2, 3, 9, 2])  # only one token matches
    []
    """
    tokens = list(history)
    end = len(tokens)
    for n in range(min(longest, end - 1), shortest - 1, -1):
        tail = tokens[end - n :]
        for start in range(end - n - 1, -1, -1):  # the latest occurrence first
            if tokens[start : start + n] == tail:
                return tokens[start + n : start + n + count]
    return []


class SpeculativeLlama(Llama):
    """llama-cpp-python's `Llama` whose greedy grammar-constrained generation is `GrammarCheck`
    plus drafts from the prompt (`drafts=False`: the lazy grammar check alone)."""

    def __init__(self, *args: Any, drafts: bool = True, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.drafts = drafts
        self.stats: DecodingStats | None = None  # of the last generation on the greedy path

    def generate(self, tokens: Sequence[int], **options: Any) -> Iterator[int]:  # type: ignore[override]
        """Tokens of the continuation of `tokens`, as `Llama.generate` yields them."""
        grammar: LlamaGrammar | None = options.get("grammar")
        fast = (
            options.get("temp") == 0.0
            and options.get("reset", True)
            and all(options.get(name, value) == value for name, value in _NEUTRAL.items())
        )
        self.stats = None
        if grammar is None or not fast:
            yield from super().generate(tokens, **options)
            return
        # The chat template's own stop tokens stop it too.
        yield from self._drafted(
            tokens, grammar, options.get("logits_processor") or [], options.get("stopping_criteria")
        )

    def _drafted(
        self, tokens: Sequence[int], grammar: LlamaGrammar, processors: list[Any], stopping: Any
    ) -> Iterator[int]:
        """`generate` at temperature 0 under a grammar: each batch of a chosen token and its drafts
        evaluated at once, the drafts kept while the model chooses them."""
        stats = self.stats = DecodingStats()
        check = GrammarCheck(self, grammar)
        try:
            started = time.perf_counter()
            logits, stats.evaluated = self._evaluate_prompt(list(tokens))
            stats.prompt_s = time.perf_counter() - started
            started = time.perf_counter()
            history = list(tokens)
            steps = _Steps(self, check, processors, stopping, stats)
            # rows[i] follows the token at position base + i: first the prompt's last token alone,
            # then each batch of a chosen token and its drafts.
            rows, base = logits[np.newaxis], self.n_tokens - 1
            drafts: list[int] = []
            while True:
                for index, row in enumerate(rows):
                    known = base + index + 1
                    chosen = steps.choose(row, known)
                    if chosen is None:
                        return
                    history.append(chosen)
                    stats.output_s = time.perf_counter() - started
                    yield chosen
                    if steps.ends(chosen, row, known):
                        yield steps.end
                        return
                    if index < len(drafts) and chosen == drafts[index]:
                        stats.accepted += 1
                        continue  # the draft was the model's own choice: its row is the next one
                    if known < self.n_tokens:  # the wrong draft and those after it leave the cache
                        self._ctx.kv_cache_seq_rm(-1, known, -1)
                        self.n_tokens = known
                    token = chosen
                    break
                drafts = draft(history)[: max(0, self._n_ctx - self.n_tokens - 1)] if self.drafts else []
                # An end token ends the text where it is chosen: the row after it is never read.
                drafts = list(itertools.takewhile(lambda t: not check.is_end(t), drafts))
                base = self.n_tokens
                rows = self._evaluate_all([token, *drafts])
                stats.drafted += len(drafts)
        finally:
            check.close()
            self._requires_eval = True  # the context's last logits may be a dropped draft's

    def _evaluate_prompt(self, tokens: list[int]) -> tuple[np.ndarray, int]:
        """Evaluate what of `tokens` the cache lacks (at least the last token): the last logits and
        the number of tokens evaluated."""
        prefix = Llama.longest_token_prefix(self.input_ids[: self.n_tokens].tolist(), tokens)
        prefix = min(prefix, len(tokens) - 1)  # the last prompt token gives the first logits
        if prefix > 0 and self._ctx.kv_cache_seq_rm(-1, prefix, -1):
            self.n_tokens = prefix
        else:
            self.reset()
        missing = tokens[self.n_tokens :]
        self.eval(missing)
        self._requires_eval = False
        return np.ctypeslib.as_array(self._ctx.get_logits_ith(-1), shape=(self._n_vocab,)).copy(), len(missing)

    def _evaluate_all(self, batch: list[int]) -> np.ndarray:
        """Evaluate `batch` after the cached tokens with logits for each of its tokens (rows in order)."""
        self._ctx.kv_cache_seq_rm(-1, self.n_tokens, -1)
        self._batch.set_batch(batch=batch, n_past=self.n_tokens, logits_all=True)
        self._ctx.decode(self._batch)
        self.input_ids[self.n_tokens : self.n_tokens + len(batch)] = batch
        self.n_tokens += len(batch)
        return np.ctypeslib.as_array(self._ctx.get_logits(), shape=(len(batch), self._n_vocab)).copy()


class _Steps:
    """One decoding's choice of each token under the grammar, and where the program is whole."""

    def __init__(
        self, llama: Llama, check: GrammarCheck, processors: list[Any], stopping: Any, stats: DecodingStats
    ) -> None:
        self.llama, self.check, self.processors, self.stopping, self.stats = llama, check, processors, stopping, stats
        self.looking = True  # for where the text must end (see `ends`)
        self.end = llama.token_eos()

    def choose(self, row: np.ndarray, known: int) -> int | None:
        """The next token after the first `known` ones; None where the stopping criteria stop."""
        for processor in self.processors:  # they see the tokens so far, as in llama-cpp-python
            row = processor(self.llama.input_ids[:known], row)
        token, share = self.check.choose(row)
        self.stats.allowed_logprobs.append(share)
        self.check.accept(token)
        if self.stopping is not None and self.stopping(self.llama.input_ids[:known], row):
            return None
        return token

    def ends(self, token: int, row: np.ndarray, known: int) -> bool:
        """Whether the program is whole after `token`: then the end token is the only one the
        grammar allows and needs no logits; the processors see `token` written."""
        # An end token is allowed only where the grammar may end: a program's grammar there
        # allows nothing else, so the whole vocabulary is asked once per program. A grammar
        # that may end or go on is asked no more (10 ms a time, against a 74 ms step).
        if not self.looking or not self.check.allows(self.end):
            return False
        if not self.check.only_ends():
            self.looking = False
            return False
        written = np.append(self.llama.input_ids[:known], token)
        for processor in self.processors:  # a recorder reads the last token's probability now
            processor(written, row)
        self.stats.ended = True
        return True
