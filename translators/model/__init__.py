"""The language-model path: backends (local llama.cpp, OpenAI-compatible HTTP, replay), prompts,
retrieval of worked examples and its embedder, decoding grammars, repair of raw output.

A new model backend goes into `backends/`. Imports `translators.wording`, `translators.gqa` and
`translators.examples`.
"""
