"""Verification of the spec: Z3 proofs of its invariants and an explicit-state model checker.

Proofs (``ksspec prove``):

- :mod:`spec.verify.terms`: helpers that build either Z3 terms or plain Python values, so one
  encoding serves both the proofs and its check against the executable spec.
- :mod:`spec.verify.cache.symbolic`: the bounded abstract cache state and the invariants over it.
- :mod:`spec.verify.cache.transitions`: every cache transition, encoded over that state.
- :mod:`spec.verify.cache.abstraction`: the map from a concrete :class:`~spec.cache.cache.CacheState` (and an
  operation) to the abstract state (and the transition's arguments), and the comparison of both.
- :mod:`spec.verify.obligations`: the named proof obligations, their solving and counterexamples.
- :mod:`spec.verify.dispatcher.symbolic`, :mod:`~spec.verify.dispatcher.transitions`,
  :mod:`~spec.verify.dispatcher.abstraction`, :mod:`~spec.verify.dispatcher.obligations`: the same
  four layers for the API dispatcher's call queue (one pending call per UID, relevance rules).
- :mod:`spec.verify.cycle.symbolic`, :mod:`~spec.verify.cycle.transitions`,
  :mod:`~spec.verify.cycle.abstraction`, :mod:`~spec.verify.cycle.obligations`: the same four
  layers for the scheduling pipeline (no node overcommitted, with TTL 0).

Model checking (``ksspec check``):

- :mod:`spec.verify.transition_system`: what the checker explores (states, edges, violations).
- :mod:`spec.verify.checker`: a breadth-first explorer of any transition system;
  :mod:`spec.verify.parallel` runs it in several processes, or with :mod:`spec.verify.dask_pool` on the workers of
  a Dask cluster, and :mod:`spec.verify.exploration` holds what both keep (the fingerprint store, the report, the
  traces).
- :mod:`spec.verify.cache.system`: the cache and its snapshot as such a system.
- :mod:`spec.verify.dispatcher.system`: the dispatcher's call queue as such a system.
- :mod:`spec.verify.cycle.system`: the scheduling pipeline (:mod:`spec.cycle.cycle`) as such a system.
- :mod:`spec.verify.cache.universe`: the finite universe of objects, times and TTLs it explores.
- :mod:`spec.verify.cache.symmetry`: canonical representatives (counters renumbered, names permuted).

Nothing outside this package imports it; it imports only :mod:`spec`.
"""
