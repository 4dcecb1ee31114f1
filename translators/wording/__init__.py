"""Reading a question's words: the ontology and vocabulary they are read in, the question's frame,
its polite and indirect wordings, the words it grounds, and the class it asks about.

The lowest room: it imports no other room of `translators`.
"""
