"""GQA's own semantic programs and files: the converter into `Program` and the streaming reader.

Imports only `translators.wording`.
"""
