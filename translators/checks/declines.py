"""Why a question gets no program: found from its words before any is tried (`beyond_language`),
from the candidates that were tried and none of which meant it (`decline`), or, when the writer
wrote none, from the words the vocabulary lacks (`unwritten`)."""

from __future__ import annotations

from collections.abc import Sequence

from translators.checks.meaning import WordKinship, inexpressible, unaccounted
from translators.checks.meaning_checks import Unmeant, WordStems
from translators.checks.question_scope import Unsupported, beyond_the_scene, out_of_scope
from translators.wording.grounded_words import stem
from translators.wording.ontology import Ontology


def beyond_language(
    direct: str, asked: str, checked: bool, vocabulary: Ontology, stems: WordStems, kinship: WordKinship | None
) -> Unsupported | None:
    """Why no program can mean the question, found from its words alone (None: try programs);
    past the forms no program says, only when meaning is `checked`."""
    scope = out_of_scope(direct)
    if scope is not None or not checked:
        return scope
    scope = beyond_the_scene(direct, vocabulary.category_of)
    if scope is not None:
        return scope
    cannot = inexpressible(asked, lambda w: stem(w) in stems.known, kinship)
    return Unsupported("inexpressible", cannot) if cannot else None


def decline(unmeant: Sequence[Unmeant], asked: str = "", stems: WordStems | None = None) -> Unsupported:
    """The decline of a question none of whose candidate programs meant it: its words the vocabulary
    lacks, where it has such and given its `stems`, else the words the programs left out most often
    (or, when each said every word, the first wrong reading)."""
    # A word no program can say is the likelier cause than one the programs could say and left out:
    # "What does the brown dog want?" was read with "want" as the thing and declined for "dog".
    unknown = () if stems is None else unaccounted(asked, lambda w: stem(w) in stems.known)
    if unknown:
        return Unsupported("inexpressible", unknown)
    counts: dict[str, int] = {}
    for candidate in unmeant:
        for word in candidate.left_out:
            counts[word] = counts.get(word, 0) + 1
    if counts:
        most = max(counts.values())
        return Unsupported("inexpressible", tuple(w for w, n in counts.items() if n == most))
    return Unsupported("inexpressible", (), unmeant[0].problem)


def unwritten(asked: str, stems: WordStems, kinship: WordKinship | None) -> Unsupported | None:
    """The decline of a question the writer wrote no program for at all: its content words that are
    no word of the vocabulary, nor a thing or a value to WordNet ("Is the cat indoors or outdoors?"); None
    when there are none (or no WordNet to tell), and the failure is the writer's own."""
    if kinship is None:
        return None
    unknown = tuple(
        w for w in unaccounted(asked, lambda w: stem(w) in stems.known) if not kinship.thing(w) and not kinship.value(w)
    )
    return Unsupported("inexpressible", unknown) if unknown else None
