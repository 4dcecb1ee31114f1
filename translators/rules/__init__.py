"""Programs written by rules, without a language model: template fill from the bank's examples of a
question's form, composition from object references, coordination, quantifiers, relation direction.

A new question form goes here (or into the bank's templates). Imports `translators.wording` and
`translators.examples`.
"""
