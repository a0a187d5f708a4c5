"""The Prospector's learning (spec §10 "Learning", CQ-19 to CQ-21, worked example 5).

A resource type is a leaf of a hidden decision tree: it *tests* 1–4 attributes, every vector of the
type agrees with those tests, and the other attributes are free (CQ-20). A scan shows unnamed vectors;
a dig names the types of a cell. Pairing the two labels vectors with types.

Three facts make the reasoning sound (each follows from CQ-20 and CQ-21):

* A type's *hypothesis* (the attributes on which all its labelled vectors agree) always contains its
  tests, because all its vectors agree on them.
* So a map vector that fits type `t`'s hypothesis satisfies `t`'s tests, and is of type `t`: two types
  always differ on an attribute both test, and a map vector satisfies its own type's tests only.
* A vector of type `t` agrees with `t`'s hypothesis on at least one attribute (the tests are never
  empty). A vector that differs from it everywhere is not `t` (the "differs in every attribute"
  argument of worked example 5).

A dig of a cell whose vectors are known gives a constraint: the cell's vectors and its types are in
one-to-one correspondence. Vectors already explained are removed with their types; a vector that can
be one type only, or a type that only one vector can be, is labelled; this repeats until nothing
changes. Constraints left ambiguous are kept and solved again whenever a new label arrives.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

Vector = tuple[int, ...]


def agreed_attributes(examples: Sequence[Vector]) -> dict[int, int]:
    """The attributes (index → value) on which every example agrees: a type's hypothesis (§10)."""
    first = examples[0]
    return {i: v for i, v in enumerate(first) if all(e[i] == v for e in examples)}


def fits(vector: Vector, hypothesis: dict[int, int]) -> bool:
    """Whether `vector` has the hypothesis' value on every attribute of the hypothesis."""
    return all(vector[i] == v for i, v in hypothesis.items())


def touches(vector: Vector, hypothesis: dict[int, int]) -> bool:
    """Whether `vector` agrees with the hypothesis on at least one attribute (else it is not that type)."""
    return any(vector[i] == v for i, v in hypothesis.items())


class TypeLearner:
    """Labelled vectors, per-type hypotheses, and the dig constraints not yet resolved."""

    def __init__(self, type_count: int = 12) -> None:
        self.type_count = type_count
        self.label_of: dict[Vector, str] = {}
        self.examples: dict[str, list[Vector]] = {}
        self.hypothesis: dict[str, dict[int, int]] = {}
        self.pending: list[tuple[set[Vector], set[str]]] = []
        self.version = 0  # bumped on every new label, so callers can refresh what they derived
        self._classified: dict[Vector, str | None] = {}
        self._classified_version = 0

    # ----------------------------------------------------------------- queries

    def classify(self, vector: Vector) -> str | None:
        """The type of a map vector, or None if the labels so far cannot tell (§10 "Learning").

        A vector is `t` if it fits `t`'s hypothesis and no other labelled type's. Once every type is
        labelled, a vector that touches exactly one type's hypothesis is that type too (every map
        vector belongs to some type, and to none it differs from everywhere)."""
        if self._classified_version != self.version:
            self._classified.clear()
            self._classified_version = self.version
        cached = self._classified.get(vector, ())
        if cached != ():
            return cached  # type: ignore[return-value]
        found = self._classify(vector)
        self._classified[vector] = found
        return found

    def _classify(self, vector: Vector) -> str | None:
        known = self.label_of.get(vector)
        if known is not None:
            return known
        fitting = [t for t, h in self.hypothesis.items() if fits(vector, h)]
        if len(fitting) == 1:
            return fitting[0]
        if not fitting and len(self.hypothesis) == self.type_count:
            touching = [t for t, h in self.hypothesis.items() if touches(vector, h)]
            if len(touching) == 1:
                return touching[0]
        return None

    def could_be(self, vector: Vector, type_id: str) -> bool:
        """Whether the labels so far allow `vector` to be of type `type_id`."""
        known = self.classify(vector)
        if known is not None:
            return known == type_id
        hypothesis = self.hypothesis.get(type_id)
        return hypothesis is None or touches(vector, hypothesis)

    # ----------------------------------------------------------------- learning

    def observe(self, vectors: Iterable[Vector], types: Iterable[str]) -> None:
        """A cell showed `vectors` and holds `types`, as many of each (a dig paired with a scan)."""
        vector_set, type_set = set(vectors), set(types)
        if not vector_set or len(vector_set) != len(type_set):
            return  # the cell changed between scan and dig (a type was emptied): nothing sound to learn
        self.pending.append((vector_set, type_set))
        self._solve_all()

    def label(self, vector: Vector, type_id: str) -> None:
        """Record that `vector` is of type `type_id`, and refresh that type's hypothesis."""
        if self.label_of.get(vector) == type_id:
            return
        self.label_of[vector] = type_id
        examples = self.examples.setdefault(type_id, [])
        examples.append(vector)
        self.hypothesis[type_id] = agreed_attributes(examples)
        self.version += 1

    def _solve_all(self) -> None:
        """Solve every pending constraint, again and again while new labels keep arriving."""
        while True:
            before = self.version
            still: list[tuple[set[Vector], set[str]]] = []
            for vector_set, type_set in self.pending:
                if self._solve(vector_set, type_set):
                    still.append((vector_set, type_set))
            self.pending = still
            if self.version == before:
                return

    def _solve(self, vectors: set[Vector], types: set[str]) -> bool:
        """Label what one constraint allows; True if part of it is still unresolved (kept pending).

        The sets are narrowed in place. A contradiction (a vector that can be none of the types) drops
        the constraint: its cell must have changed between the scan and the dig."""
        while vectors:
            progress = False
            for vector in list(vectors):
                known = self.classify(vector)
                if known is None:
                    continue
                if known not in types:
                    return False
                vectors.discard(vector)
                types.discard(known)
                progress = True
            if not vectors:
                return False
            options = {v: [t for t in sorted(types) if self.could_be(v, t)] for v in sorted(vectors)}
            if any(not opts for opts in options.values()):
                return False
            single = next(((v, opts[0]) for v, opts in options.items() if len(opts) == 1), None)
            if single is None:
                for type_id in sorted(types):
                    holders = [v for v, opts in options.items() if type_id in opts]
                    if len(holders) == 1:
                        single = (holders[0], type_id)
                        break
            if single is not None:
                self.label(*single)
                vectors.discard(single[0])
                types.discard(single[1])
                progress = True
            if not progress:
                return True
        return False
