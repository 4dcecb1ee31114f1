"""Whether a question can be expressed and whether a program means it: the wordings declined
before anything is tried, the meaning check, the read-back, self-consistency.

A new decline rule goes here. Imports `translators.wording` and `translators.rules`.
"""
