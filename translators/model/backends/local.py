"""The embedded default: a bundled GGUF model run in-process by llama.cpp (llama-cpp-python).

Speed comes from what llama.cpp offers: the fixed prompt prefix's KV cache is reused across
requests (llama-cpp-python keeps the evaluated tokens and only evaluates what differs), and a GBNF
grammar keeps every output a program. Greedy decoding (temperature 0, the default) checks the
grammar on the likeliest token only and drafts tokens from the prompt
(`translators.model.backends.llama_decoding`); `prompt_lookup=False` turns the drafts off.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import hashlib
import json
import logging
import threading
import time
from collections import OrderedDict
from pathlib import Path

from theory.cache import cache_dir, replaced_whole
from translators.model.backends.base import Backend, BackendError, Generation, GenerationRequest
from translators.model.backends.models import LOCAL_MODELS, model_path
from translators.model.threads import model_threads

_LOG = logging.getLogger("aspvqa.llama_cpp")
# Compiled grammars kept: the fixed one and the latest questions' own (a grammar is built per question).
MAX_COMPILED_GRAMMARS = 16
_quiet_lock = threading.Lock()
_log_callback = None  # kept referenced: llama.cpp holds only a C pointer to it


class _NoRedirect(contextlib.nullcontext):
    """Stands in for llama-cpp-python's `suppress_stdout_stderr` (same signature, does nothing)."""

    def __init__(self, disable: bool = True) -> None:
        super().__init__()


def quiet_llama_cpp() -> None:
    """Silence llama.cpp through its log callback, never through the process's file descriptors.

    llama-cpp-python's `verbose=False` dup2()s descriptors 1 and 2 to /dev/null and back while a
    model loads. From a worker thread that races with anything else that redirects them (pytest's
    capture, a second load) and can leave the whole process writing to /dev/null. Here the
    redirect is replaced by nothing and llama.cpp's messages go to the `aspvqa.llama_cpp` logger at
    DEBUG (a failed load raises in Python anyway; its model-file warnings are not the user's).
    """
    global _log_callback
    with _quiet_lock:
        if _log_callback is not None:
            return
        import llama_cpp
        import llama_cpp._internals as internals
        import llama_cpp.llama as llama_module

        @llama_cpp.llama_log_callback
        def forward(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
            _LOG.debug("%s", text.decode("utf-8", "replace").rstrip())

        llama_cpp.llama_log_set(forward, ctypes.c_void_p(0))
        llama_module.suppress_stdout_stderr = _NoRedirect  # type: ignore[misc, assignment]  # replaced on purpose
        internals.suppress_stdout_stderr = _NoRedirect  # type: ignore[misc, assignment]
        _log_callback = forward


def gpu_offload_supported() -> bool:
    """Whether the installed llama.cpp was built with a GPU backend (CUDA, Metal, Vulkan...)."""
    try:
        import llama_cpp
    except ImportError:
        return False
    return bool(llama_cpp.llama_supports_gpu_offload())


class LlamaCppBackend(Backend):
    """A local GGUF model; loaded on first use and kept for later requests."""

    supports_grammar = True
    # llama.cpp reuses the evaluated tokens a new prompt starts with: `Translator.warm_up` uses it.
    keeps_prefix = True
    saves_prefix = True

    def __init__(
        self,
        model: str = "qwen2.5-coder-1.5b",
        *,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        prompt_lookup: bool = True,
        chat: bool | None = None,
        gpu_layers: int = 0,
        flash_attn: bool = True,
    ) -> None:
        self.name = model if model in LOCAL_MODELS else Path(model).stem
        self.model = model
        self.n_ctx = n_ctx
        self.n_threads = n_threads or model_threads()
        # Layers offloaded to a GPU: 0 on the CPU, -1 for all (what `gpu_layers_for` chooses).
        self.gpu_layers = gpu_layers
        self.prompt_lookup = prompt_lookup
        # llama.cpp's fused attention: a question's ~120 prompt tokens after the cached ~1,000 took
        # 1.29 s instead of 1.43 s on 2 cores. It keeps the KV cache in another layout, so a saved
        # prompt state is kept per setting (`_state_path`).
        self.flash_attn = flash_attn
        self.chat = (
            LOCAL_MODELS[model].chat if chat is None and model in LOCAL_MODELS else (chat if chat is not None else True)
        )
        self._llama = None
        # Compiled grammars by text; each question has its own, so only the latest few are kept.
        self._grammars: OrderedDict[str, object] = OrderedDict()
        self._lock = threading.Lock()  # one llama context serves one request at a time

    def _load(self):  # noqa: ANN202 - llama_cpp types are optional imports
        if self._llama is None:
            try:
                from translators.model.backends.llama_decoding import SpeculativeLlama
            except ImportError as exc:
                raise BackendError(
                    "llama-cpp-python is not installed: run `make install` (scripts/install_llm.sh)"
                ) from exc
            quiet_llama_cpp()
            path = model_path(self.model)
            self._llama = SpeculativeLlama(
                model_path=str(path),
                drafts=self.prompt_lookup,
                n_ctx=self.n_ctx,
                n_threads=self.n_threads,
                n_threads_batch=self.n_threads,
                n_gpu_layers=self.gpu_layers,
                flash_attn=self.flash_attn,
                verbose=False,
                seed=0,
            )
            # Free the model before interpreter shutdown tears down llama_cpp's module globals,
            # which otherwise makes Llama.__del__ print an ignored TypeError at exit.
            atexit.register(self.close)
        return self._llama

    def close(self) -> None:
        """Release the model (it is loaded again on the next request)."""
        if self._llama is not None:
            self._llama.close()
            self._llama = None

    def _grammar(self, text: str):  # noqa: ANN202
        if text in self._grammars:
            self._grammars.move_to_end(text)
        else:
            from llama_cpp import LlamaGrammar

            self._grammars[text] = LlamaGrammar.from_string(text, verbose=False)
            while len(self._grammars) > MAX_COMPILED_GRAMMARS:
                self._grammars.popitem(last=False)
        return self._grammars[text]

    def warm(self, request: GenerationRequest) -> str:
        """Evaluate `request`'s prompt now, so that later prompts starting the same way reuse it.

        The evaluated state (about 30 MB for Qwen's ~1,000-token fixed prompt) is kept in the cache
        folder under a digest of the model file, the prompt and the runtime, and read back on the
        next start: 0.1 s instead of ~20 s of prompt evaluation on 2 cores. Returns "restored" or
        "evaluated"; a state that cannot be read is evaluated again and replaced.
        """
        with self._lock:
            llama = self._load()
            if request.grammar:
                self._grammar(request.grammar)  # compiled now either way
            path = self._state_path(request)
            if path.exists() and _restore_state(llama, path):
                return "restored"
        self.generate(request)
        with self._lock:
            _save_state(self._load(), path)
        return "evaluated"

    def _state_path(self, request: GenerationRequest) -> Path:
        import llama_cpp

        model = model_path(self.model)
        stat = model.stat()
        prompt = request.messages() if self.chat else request.completion()
        # The build's CPU kernels too: a state evaluated by other ones holds other rounding.
        system = llama_cpp.llama_print_system_info().decode("utf-8", "replace")
        runtime = [self.n_ctx, self.gpu_layers, llama_cpp.__version__, system]
        if self.flash_attn:  # (appended only when on: states saved without it keep their names)
            runtime.append("flash_attn")
        identity = json.dumps([str(model.resolve()), stat.st_size, stat.st_mtime_ns, *runtime, prompt], sort_keys=True)
        digest = hashlib.sha256(identity.encode()).hexdigest()[:16]
        return cache_dir() / "models" / f"{self.name}-prompt-{digest}.state"

    def generate(self, request: GenerationRequest) -> Generation:
        """Generate with the model's chat template (or the completion layout for base models)."""
        with self._lock:
            llama = self._load()
            grammar = self._grammar(request.grammar) if request.grammar else None
            options = dict(
                max_tokens=request.max_tokens,
                temperature=request.temperature,
                seed=request.seed + request.sample,
                stop=list(request.stop) or None,
                grammar=grammar,
            )
            if request.temperature == 0.0:
                options["top_k"] = 1
            recorder = TokenLogprobs()
            options["logits_processor"] = recorder.processors()
            _reset_counters(llama)
            start = time.perf_counter()
            try:
                if self.chat:
                    result = llama.create_chat_completion(messages=request.messages(), **options)
                    text = result["choices"][0]["message"]["content"] or ""
                else:
                    result = llama.create_completion(prompt=request.completion(), **options)
                    text = result["choices"][0]["text"]
            except (RuntimeError, ValueError) as exc:
                raise BackendError(f"{self.name}: generation failed: {exc}") from exc
            usage = result.get("usage") or {}
            stats = llama.stats  # the greedy path times itself: llama.cpp counts drafts as prompt
            evaluated, prompt_s, output_s = (
                (stats.evaluated, stats.prompt_s, stats.output_s) if stats is not None else _counters(llama)
            )
            return Generation(
                text,
                time.perf_counter() - start,
                self.name,
                usage.get("prompt_tokens"),
                usage.get("completion_tokens"),
                evaluated,
                prompt_s,
                output_s,
                recorder.logprobs(),
                tuple(stats.allowed_logprobs) if stats is not None else None,
            )


def _restore_state(llama, path: Path) -> bool:  # noqa: ANN001 - llama_cpp types are optional imports
    """Load a saved context state and the tokens it holds; False (file removed) when it does not load."""
    import llama_cpp

    capacity = llama.n_ctx()
    tokens = (llama_cpp.llama_token * capacity)()
    count = ctypes.c_size_t(0)
    if not llama_cpp.llama_state_load_file(llama._ctx.ctx, str(path).encode(), tokens, capacity, ctypes.byref(count)):
        _LOG.warning("saved prompt state %s did not load; evaluating the prompt again", path)
        path.unlink(missing_ok=True)
        llama.reset()
        return False
    # llama-cpp-python compares the next prompt with these tokens to reuse the state's prefix.
    llama.input_ids[: count.value] = tokens[: count.value]
    llama.n_tokens = count.value
    llama._requires_eval = True
    return True


def _save_state(llama, path: Path) -> None:  # noqa: ANN001
    """Write the context state and its tokens to `path` (whole or not at all); best effort."""
    import llama_cpp

    count = llama.n_tokens
    tokens = (llama_cpp.llama_token * count)(*llama.input_ids[:count].tolist())
    try:
        with replaced_whole(path) as temporary:
            if not llama_cpp.llama_state_save_file(llama._ctx.ctx, str(temporary).encode(), tokens, count):
                raise OSError(f"llama.cpp could not write {temporary}")
    except OSError:
        return  # a read-only cache folder: the prompt is evaluated on every start


class TokenLogprobs:
    """A logits processor that keeps the log-probability of each token the model writes.

    llama.cpp hands it the logits of the next position together with the tokens so far, so the
    token chosen at one step is known at the next: its log-probability is read from the logits kept
    from the step before. Reading them costs a softmax over the vocabulary per token (about 1 ms
    for Qwen's 151,936 tokens), against 60-70 ms per token of generation here; llama-cpp-python's
    own `logprobs` would need `logits_all`, which keeps logits for every prompt token.
    """

    def __init__(self) -> None:
        self._previous: tuple[int, object, float] | None = None  # (tokens so far, logits, log-sum-exp)
        self._values: list[float] = []

    def __call__(self, input_ids, scores):  # noqa: ANN001, ANN204 - numpy arrays from llama-cpp-python
        import numpy as np

        if self._previous is not None:
            length, logits, normaliser = self._previous
            if len(input_ids) > length:
                self._values.append(float(logits[int(input_ids[length])]) - normaliser)
        top = float(scores.max())
        normaliser = top + float(np.log(np.exp(scores - top).sum()))
        self._previous = (len(input_ids), scores.copy(), normaliser)
        return scores

    def processors(self):  # noqa: ANN201
        """The recorder as the list llama-cpp-python's `logits_processor` option takes."""
        from llama_cpp import LogitsProcessorList

        return LogitsProcessorList([self])

    def logprobs(self) -> tuple[float, ...]:
        """The log-probabilities read so far (every written token but the last)."""
        return tuple(self._values)


def _reset_counters(llama) -> None:  # noqa: ANN001 - llama_cpp types are optional imports
    """Zero llama.cpp's per-context counters, so the next call's own numbers can be read."""
    import llama_cpp

    with contextlib.suppress(AttributeError):  # a runtime without the perf API: no counters
        llama_cpp.llama_perf_context_reset(llama._ctx.ctx)


def _counters(llama) -> tuple[int | None, float | None, float | None]:  # noqa: ANN001
    """(prompt tokens evaluated, seconds reading them, seconds writing the output) of the last call."""
    import llama_cpp

    try:
        perf = llama_cpp.llama_perf_context(llama._ctx.ctx)
    except AttributeError:
        return None, None, None
    return int(perf.n_p_eval), perf.t_p_eval_ms / 1000, perf.t_eval_ms / 1000
