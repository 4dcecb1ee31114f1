import importlib.util

import pytest

from theory.operations import OPERATIONS
from translators.grammar import program_grammar
from translators.vocabulary import Vocabulary

needs_llama = pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python not installed")


@pytest.mark.parametrize("representation", ["flat", "nested", "code", "gqa"])
def test_grammar_mentions_every_operation(representation):
    grammar = program_grammar(representation)
    if representation != "gqa":
        assert all(f"{name}(" in grammar for name in OPERATIONS)


def test_nested_grammar_is_typed():
    grammar = program_grammar("nested")
    assert 'boolexpr ::=' in grammar and '"and(" boolexpr ", " boolexpr ")"' in grammar
    assert '"query(" state ", " cat ")"' in grammar


def test_vocabulary_limits_argument_words():
    vocabulary = Vocabulary(classes={"cup", "tennis_racket"}, values={"color": {"red"}}, relations={"on"})
    grammar = program_grammar("flat", vocabulary)
    assert 'cls ::= "cup" | "tennis_racket"' in grammar
    assert 'rel ::= "on"' in grammar


def test_unknown_representation_is_an_error():
    with pytest.raises(ValueError):
        program_grammar("yaml")


@needs_llama
@pytest.mark.parametrize("representation", ["flat", "nested", "code", "gqa"])
def test_llama_cpp_accepts_the_grammars(representation):
    from llama_cpp import LlamaGrammar

    vocabulary = Vocabulary(classes={"cup"}, values={"color": {"red"}}, relations={"on"})
    for grammar in (program_grammar(representation), program_grammar(representation, vocabulary)):
        assert LlamaGrammar.from_string(grammar, verbose=False) is not None
