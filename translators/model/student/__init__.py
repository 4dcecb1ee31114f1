"""A small program writer for the questions the rules leave: MiniLM's token states in, a program out.

`pairs` gathers what it learns from (the bank and GQA's own programs), `vocabulary` turns programs
into tokens and back, `network` and `training` train it (PyTorch, only then), and `writer` runs the
trained weights with NumPy and ONNX Runtime, the way the service does.
"""
