"""Fill a question whose exact form the bank lacks from the parts it is made of.

"What is the skier to the left of the tent wearing?" has no example of its form, but its object
reference ("the skier to the left of the tent") is a `relate` chain and the rest of it is the
question "What is the skier wearing?", which the bank has. An object reference is

    [article] ATTRIBUTE* NOUN POST?
    POST := [that|which|who] [is|are] RELATION REFERENCE      the man (that is) on the bed
          | [that|which] REFERENCE [is|are] RELATION          the shirt (that) the man is wearing / wears
                                                              (also one level down: the fruit on the
                                                              desk the grapefruit is to the left of)
          | that|which is|are|looks ATTRIBUTE [and ATTRIBUTE]  the plate that looks pink and red
          | on|in the left|right|top|bottom|middle            the box on the right

and "his/her/their REFERENCE" is that reference ``of`` him, her or them (``relate(X, of, subject)``
from ``select(he)``), and "REFERENCE's REFERENCE" ("the girl's hair") the second ``of`` the first.

where a noun is an ontology class, or any other word right after an article ("the racket"). Each
reference is read into its chain (`select`, then `relate` for the relation, `filter` for each
attribute, as GQA writes them), the question is filled with bare nouns in its place
(`translators.rules.template_fill`), and the chain replaces the noun's `select` in the filled program.
A noun that ends up as the class of a `relate` ("How many red cars are on the street?" filled as
"How many cars are on the street?") gets its attributes as filters after that `relate`, as GQA
writes them; one that ends up as a plain argument (the class of a `choose_rel`) keeps its word and
drops its attributes, as GQA's programs do. Only a question the plain fill cannot answer is read so.

Example:
    >>> from translators.examples.bank import legacy_bank
    >>> from translators.wording.ontology import bundled_ontology
    >>> from translators.rules.template_fill import TemplateFiller
    >>> from theory.nested import format_nested
    >>> composer = CompositionalFiller(TemplateFiller(legacy_bank(), bundled_ontology()))
    >>> format_nested(composer.fill("Is there a red cup on the wooden table?").program)
    'exist(filter(relate(filter(select(scene(), table), material, wooden), cup, on, subject), color, red))'
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from functools import cached_property

from theory.operations import POSITION_VALUES
from theory.program import Program
from translators.rules.plain_wording import GROUP_ROLE
from translators.rules.reference_steps import Reference, compose
from translators.rules.template_fill import ARTICLES, FilledProgram, Slots, TemplateFiller
from translators.wording.grounded_words import FUNCTION_WORDS, PRONOUNS, SPELLINGS, stem

_RELATIVE = frozenset({"that", "which", "who"})
# References nest at most four deep; `posts` at this depth reads every noun with what follows it.
GREEDY = 4
_BE = frozenset({"is", "are"})
_LOOK = _BE | {"looks", "look"}
_NOUN_ROLES = frozenset({"thing", GROUP_ROLE})
# Words that never start a noun after an article besides the function words (they are the
# question's frame or a relation; "s" is a possessive's).
_NOT_NOUNS = frozenset(
    """left right top bottom middle center front back side picture image photo color colors same
    different other one many more fewer less number s""".split()
)
# A possessive before a noun is the noun `of` that object ("his tail": the tail of him), as GQA's
# programs write it.
_POSSESSIVES = {"his": "he", "her": "she", "their": "they"}
_NEVER_NOUNS = _NOT_NOUNS | FUNCTION_WORDS  # the relative pronouns are function words
_POSITIONS = {value: category for category, values in POSITION_VALUES.items() for value in values}
_MAX_RELATION_WORDS = 5
# Changes whenever what is composed changes (part of the translation cache key via the fill rules).
COMPOSITION_VERSION = 13

Raw = list[tuple[str, str | None]]
_Post = tuple[int, "tuple[str, str, Reference] | None", list[tuple[str, str]]]


class CompositionalFiller:
    """Fills questions made of known parts (see the module docstring)."""

    def __init__(self, filler: TemplateFiller) -> None:
        self.filler = filler
        self.ontology = filler.ontology

    @cached_property
    def _relations(self) -> dict[tuple[str, ...], str]:
        """A relation's words as questions say them (articles dropped, by stem) -> the relation."""
        found: dict[tuple[str, ...], str] = {}
        for relation in self.ontology.relations:
            words = tuple(stem(w) for w in relation.split("_") if w not in ARTICLES)
            if words:
                found.setdefault(words, relation)
        return found

    def fill(
        self, question: str, exclude_ids: Collection[str] = (), accept: Callable[[Program], bool] | None = None
    ) -> FilledProgram | None:
        """The question's program composed from its references and its frame, or None (with
        `accept`, only composed programs it accepts count)."""
        raw = self.filler.raw_slots(question)
        read: list[Raw] = []
        # The longest references first; when no form fits them, a relation's object and then every
        # noun are read without what follows them ("the man beside the sign | wearing shorts", "the
        # tall tree | in front of a fence"), so the rest is the question's own predicate.
        for posts in (GREEDY, 1, 0):
            references, reduced = self._read(raw, posts)
            if reduced in read:
                continue
            read.append(reduced)
            variants = _variants(self.filler.plain(reduced))
            if not references:
                # The plain fill tried the question as it is ("trees" there is a group word, here a noun).
                tried = self.filler.plain(raw)
                variants = [v for v in variants if v != tried]
            for variant in variants:
                composed = self._fill_variant(variant, references, exclude_ids, accept)
                if composed is not None:
                    return composed
        return None

    def _fill_variant(
        self,
        slots: Slots,
        references: list[Reference],
        exclude_ids: Collection[str],
        accept: Callable[[Program], bool] | None,
    ) -> FilledProgram | None:
        def composes(program: Program) -> bool:
            made = compose(program, references) if references else program
            return made is not None and (accept is None or accept(made))

        filled = self.filler.fill_slots(slots, exclude_ids, composes)
        if filled is None:
            return None
        program = compose(filled.program, references) if references else filled.program
        if program is None:
            return None
        return FilledProgram(program, f"composed: {filled.form}", filled.examples, filled.votes, filled.voters)

    def reduced(self, question: str) -> tuple[str, list[Reference]] | None:
        """The question with each reference that relates its object to another said as its bare noun
        ("What color is the blanket to the left of the trash can?" -> "What color is the blanket?"), and
        those references; None when it has none."""
        raw = self.filler.raw_slots(question)
        references: list[Reference] = []
        words: list[str] = []
        index = 0
        while index < len(raw):
            found = self._reference(raw, index)
            if found is not None and found[0].relation is not None:
                reference, end = found
                if raw[index][0] in ARTICLES and raw[index][1] is None:
                    words.append(raw[index][0])  # the reference's own article
                references.append(reference)
                words.append(reference.noun.replace("_", " "))
                index = end
                continue
            role, said = raw[index]
            words.append(said if said is not None else role)
            index += 1
        if not references:
            return None
        text = " ".join(words)
        return f"{text[0].upper()}{text[1:]}?", references

    # Reading references -------------------------------------------------------------------------

    def _read(self, raw: Raw, posts: int = GREEDY) -> tuple[list[Reference], Raw]:
        """The question's references that are more than a bare noun, and its slots with bare nouns instead."""
        references: list[Reference] = []
        reduced: Raw = []
        index = 0
        joined_by: list[str | None] = []  # "or"/"and" right before each reference, when that joins it to the one before
        while index < len(raw):
            found = self._reference(raw, index, posts=posts)
            if found is None:
                reduced.append(raw[index])
                index += 1
                continue
            reference, end = found
            before = raw[index - 1][0] if index and raw[index - 1][1] is None else None
            coordinated = before in ("or", "and") and len(reduced) > 1 and reduced[-2][1] is not None
            joined_by.append(before if coordinated else None)
            references.append(reference)
            # A group, or a class the reading gave a group's role ("What pastry is on the round tray?")
            grouped = reference.noun in self.ontology.groups or (GROUP_ROLE, reference.noun) in raw[index:end]
            reduced.append((GROUP_ROLE if grouped else "thing", reference.noun))
            index = end
        for first, (second, conjunction) in zip(references, zip(references[1:], joined_by[1:], strict=True)):
            if conjunction and first.plain and second.after and second.relation is None:
                first.after = list(second.after)  # "tables or chairs that are made of metal": both are
        changed = any(not r.plain or r.new_word for r in references)
        return (references if changed else []), reduced

    def _noun_at(self, raw: Raw, index: int, after_article: bool) -> tuple[str, int, list[str], bool] | None:
        """The noun at `index`: (its name, where it ends, words the ontology lacks that modify it,
        whether the noun itself is such a word)."""
        if not after_article and _word(raw, index) in PRONOUNS:
            return PRONOUNS[str(_word(raw, index))], index + 1, [], True  # "the umbrella that he is carrying"
        if _word(raw, index) == "other" and index + 1 < len(raw) and raw[index + 1][0] in _NOUN_ROLES:
            index += 1  # "the basket above the other basket": GQA's program names a basket, as "the basket"
        unknown: list[str] = []
        while self._unknown(raw, index + len(unknown)):
            unknown.append(raw[index + len(unknown)][0])
        at = index + len(unknown)
        if at < len(raw) and raw[at][0] in _NOUN_ROLES and raw[at][1] is not None:
            return str(raw[at][1]), at + 1, unknown, False  # "the wooden table": an unknown word, then a class
        if after_article and unknown:
            return "_".join(unknown), at, [], True  # a noun the ontology lacks, named by its article ("the racket")
        return None

    def _unknown(self, raw: Raw, index: int) -> bool:
        """Whether the slot at `index` is a plain word that may be (part of) a noun."""
        word = _word(raw, index)
        if word is None or not word.isalpha() or word in _NEVER_NOUNS or word in self._categories:
            return False  # "the material of the bowl": what is asked of the bowl, not an object
        return self._relation_at(raw, index) is None

    @cached_property
    def _categories(self) -> frozenset[str]:
        return frozenset(self.ontology.query_categories)

    def _made_of(self, raw: Raw, index: int) -> _Post | None:
        """ "made (out) of wood" after a noun: the material as an attribute."""
        at = _made_of_words(raw, index)
        if at is None or _word(raw, at + 1) == "or":
            return None  # "the bag on the chair made of leather or plastic": the question's choice
        attribute = self._attribute_at(raw, at)
        if attribute is None and at < len(raw):
            # "made of wire", "made of paper": what a thing is made of is its material, whether the
            # ontology knows the word as a class or not at all.
            role, value = raw[at]
            word = value if role in _NOUN_ROLES else _word(raw, at)
            if word is not None and word.replace("_", "").isalpha() and word not in _NEVER_NOUNS:
                attribute = ("material", word)
        return None if attribute is None else (at + 1, None, [attribute])

    def _doing(self, raw: Raw, index: int) -> bool:
        """Whether the slot is an -ing word the ontology lacks that ends the clause ("that is surfing")."""
        word = _word(raw, index)
        following = raw[index + 1][0] if index + 1 < len(raw) else None
        return (
            word is not None
            and word.endswith("ing")
            and following not in ARTICLES
            and (following is None or following not in _NOUN_ROLES)
        )

    def _attribute_at(self, raw: Raw, index: int) -> tuple[str, str] | None:
        if index >= len(raw):
            return None
        role, words = raw[index]
        if words is None or role in _NOUN_ROLES:
            return None
        return ("" if role == "property" else role.replace(" ", "_")), words

    def _relation_at(self, raw: Raw, index: int) -> tuple[str, int] | None:
        """The longest relation whose words start at `index` (articles skipped)."""
        words: list[str] = []
        best = None
        position = index
        while position < len(raw) and len(words) < _MAX_RELATION_WORDS:
            role, value = raw[position]
            if value is not None:
                break
            position += 1
            if role in ARTICLES:
                continue
            words.append(stem(role))
            relation = self._relations.get(tuple(words))
            if relation is not None:
                best = (relation, position)
        return best

    def _reference(
        self, raw: Raw, index: int, depth: int = 0, object_of: bool = False, posts: int = GREEDY
    ) -> tuple[Reference, int] | None:
        """The reference that starts at `index`, and where it ends (`object_of`: it follows a
        relation, which always has an object: "wearing trousers" names trousers without an article;
        `posts`: the depth from which a noun is read without what follows it)."""
        if depth > 3:
            return None
        owner = _POSSESSIVES.get(str(_word(raw, index)))
        if owner is not None:
            owned = self._reference(raw, index + 1, depth + 1, object_of=True, posts=posts)
            if owned is not None and owned[0].relation is None:
                owned[0].relation = ("of", "subject", Reference(owner, new_word=True))
                return owned
            # Otherwise "her" is the object itself ("to the left of her"), read below.
        article = index < len(raw) and raw[index][0] in ARTICLES and raw[index][1] is None
        at = index + article
        attributes = []
        while (attribute := self._attribute_at(raw, at)) is not None:
            attributes.append(attribute)
            at += 1
        noun = self._noun_at(raw, at, article or object_of or bool(attributes))
        if noun is None and article and attributes:
            noun = (attributes.pop()[1], at, [], True)  # "the kitchen", "the paper": a value named as an object
        if noun is None:
            return None
        name = SPELLINGS.get(noun[0], noun[0])  # the name GQA's programs write ("trousers" -> pants)
        reference = Reference(name, attributes + [("", word) for word in noun[2]], new_word=noun[3] or name != noun[0])
        if _word(raw, noun[1]) == "s":  # "the girl's hair": the hair of the girl, as "her hair" is
            owned = self._reference(raw, noun[1] + 1, depth + 1, object_of=True, posts=posts)
            if owned is not None and owned[0].relation is None:
                owned[0].relation = ("of", "subject", reference)
                return owned
            return None
        negated = self._negated(raw, noun[1]) if depth < posts else None
        if negated is not None:
            end, reference.negated = negated
            return reference, end
        post = self._post(raw, noun[1], depth, posts) if depth < posts else None
        if post is None:
            return reference, noun[1]
        end, reference.relation, reference.after = post
        return reference, end

    def _post(self, raw: Raw, index: int, depth: int, posts: int = GREEDY) -> _Post | None:
        """What follows a noun as part of its reference: (where it ends, relation, attributes), or None."""
        at = index
        relative = _word(raw, at) in _RELATIVE
        at += relative
        if relative and _word(raw, at) in _LOOK:  # "that is red", "that looks pink and red"
            described = self._described(raw, at + 1)
            if described is not None:
                return described
        start = at + 1 if relative and _word(raw, at) in _BE else at
        made = self._made_of(raw, start)  # "(that is) made of wood"
        if made is not None:
            return made
        if (relation := self._relation_at(raw, start)) is not None:  # "(that is) on the bed"
            other = self._reference(raw, relation[1], depth + 1, object_of=True, posts=posts)
            if other is not None:
                return other[1], (relation[0], "subject", other[0]), []
        if relative and start > at and self._doing(raw, start):  # "that is surfing": an activity, no object
            return start + 1, None, [("", str(_word(raw, start)))]
        placed = _placed(raw, start)
        if placed is not None or depth > 1:
            return placed
        return self._object_clause(raw, at, depth, posts)

    def _negated(self, raw: Raw, index: int) -> tuple[int, list[tuple[str, str]]] | None:
        """A relative clause that denies attributes ("that is not small"): where it ends and the
        attributes, or None."""
        if _word(raw, index) not in _RELATIVE or _word(raw, index + 1) not in _BE or _word(raw, index + 2) != "not":
            return None
        described = self._described(raw, index + 3)
        return None if described is None else (described[0], described[2])

    def _described(self, raw: Raw, position: int) -> _Post | None:
        """The attributes a relative clause gives from `position` ("red", "pink and red"), or None."""
        after: list[tuple[str, str]] = []
        while (attribute := self._attribute_at(raw, position)) is not None:
            if after and _word(raw, position + 1) == "or":
                break  # "the horse that is standing brown or white": the question's choice
            after.append(attribute)
            position += 1
            if _word(raw, position) == "and" and self._attribute_at(raw, position + 1) is not None:
                position += 1
        return (position, None, after) if after else None

    def _object_clause(self, raw: Raw, at: int, depth: int, posts: int) -> _Post | None:
        """A clause whose subject relates to the noun as its object ("(that) the man is wearing"), or None."""
        other = self._reference(raw, at, depth + 1, posts=posts)
        if other is not None and _word(raw, other[1]) in _BE:
            relation = self._relation_at(raw, other[1] + 1)
            if relation is not None:
                return relation[1], (relation[0], "object", other[0]), []
        if other is not None and (relation := self._relation_at(raw, other[1])) is not None:
            # "(that) the man wears": a verb's present tense, read by its stem ("wears" as wearing)
            if relation[0].split("_")[0].endswith("ing"):
                return relation[1], (relation[0], "object", other[0]), []
        return None


def _placed(raw: Raw, start: int) -> _Post | None:
    """A position said after a noun ("(that is) on the right", "in the top"), or None."""
    if _word(raw, start) not in ("on", "in", "at"):
        return None
    position = start + 1 + (_word(raw, start + 1) in ARTICLES)
    value = _word(raw, position)
    if value in _POSITIONS:
        end = position + 1 + (_word(raw, position + 1) == "side" and value in ("left", "right"))  # "the right side"
        return end, None, [(_POSITIONS[value], value)]
    return None


_SINGULAR = {"are": "is", "these": "it", "those": "it", "have": "has", "were": "was"}


def _variants(slots: Slots) -> list[Slots]:
    """The slots, then (where they differ) read in the singular ("what animals are sitting" asks
    what "what animal is sitting" asks), then with group words after the first as plain nouns
    ("what vehicle is this, a bus or a truck"), then with all of them ("is the bag to the right of
    the chair" as "is the cup to the right of the chair"): GQA's programs depend on neither, as
    long as the word is kept, which the fill does."""
    singular = tuple((_SINGULAR.get(role, role) if words is None else role, words) for role, words in slots)
    nouns = tuple(("thing" if role == GROUP_ROLE else role, words) for role, words in singular)
    # "What vehicle is this, a bus or a truck?": the group asked about stays, the named ones are nouns.
    first = next((i for i, (role, _) in enumerate(singular) if role == GROUP_ROLE), None)
    later = tuple(
        ("thing" if role == GROUP_ROLE and i != first else role, words) for i, (role, words) in enumerate(singular)
    )
    # "How many trees are behind the fence?": a count asks in the plural, so group words become
    # plain nouns with "are" kept too (tried last: every other reading goes first).
    plural_nouns = tuple(("thing" if role == GROUP_ROLE else role, words) for role, words in slots)
    out = [slots]
    for variant in (singular, later, nouns, plural_nouns):
        if variant not in out:
            out.append(variant)
    return out


def _made_of_words(raw: Raw, index: int) -> int | None:
    """Where "made (out) of" that starts at `index` ends."""
    if _word(raw, index) != "made":
        return None
    at = index + 1 + (_word(raw, index + 1) == "out")
    return at + 1 if _word(raw, at) == "of" else None


def _word(raw: Raw, index: int) -> str | None:
    """The plain word at `index` (None past the end or for a slot that stands for ontology words)."""
    if index >= len(raw) or raw[index][1] is not None:
        return None
    return raw[index][0]
