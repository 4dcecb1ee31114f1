"""The example bank: (question, program) pairs, the generator that writes them from the project's
templates, and the bank the service uses by default.

Imports `translators.wording` and `translators.gqa`.
"""
