"""Whether a question can be expressed and whether a program means it: the wordings declined
before anything is tried, the meaning check, the read-back, the misreadings of a question's
shape, self-consistency.

A new decline rule goes here. Imports `translators.wording` and `translators.rules`.
"""
