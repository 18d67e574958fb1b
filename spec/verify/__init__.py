"""Verification of the spec: Z3 proofs of its invariants and an explicit-state model checker.

Proofs (``ksspec prove``):

- :mod:`spec.verify.terms`: helpers that build either Z3 terms or plain Python values, so one
  encoding serves both the proofs and its check against the executable spec.
- :mod:`spec.verify.symbolic`: the bounded abstract cache state and the invariants over it.
- :mod:`spec.verify.transitions`: every cache transition, encoded over that state.
- :mod:`spec.verify.abstraction`: the map from a concrete :class:`~spec.cache.CacheState` (and an
  operation) to the abstract state (and the transition's arguments), and the comparison of both.
- :mod:`spec.verify.obligations`: the named proof obligations, their solving and counterexamples.
- :mod:`spec.verify.dispatcher_symbolic`, :mod:`~spec.verify.dispatcher_transitions`,
  :mod:`~spec.verify.dispatcher_abstraction`, :mod:`~spec.verify.dispatcher_obligations`: the same
  four layers for the API dispatcher's call queue (one pending call per UID, relevance rules).
- :mod:`spec.verify.cycle_symbolic`, :mod:`~spec.verify.cycle_transitions`,
  :mod:`~spec.verify.cycle_abstraction`, :mod:`~spec.verify.cycle_obligations`: the same four
  layers for the scheduling pipeline (no node overcommitted, with TTL 0).

Model checking (``ksspec check``):

- :mod:`spec.verify.transition_system`: what the checker explores (states, edges, violations).
- :mod:`spec.verify.checker`: a breadth-first explorer of any transition system;
  :mod:`spec.verify.parallel` runs it in several processes, and :mod:`spec.verify.exploration` holds what both keep
  (the fingerprint store, the report, the traces).
- :mod:`spec.verify.cache_system`: the cache and its snapshot as such a system.
- :mod:`spec.verify.dispatcher_system`: the dispatcher's call queue as such a system.
- :mod:`spec.verify.cycle_system`: the scheduling pipeline (:mod:`spec.cycle`) as such a system.
- :mod:`spec.verify.universe`: the finite universe of objects, times and TTLs it explores.
- :mod:`spec.verify.symmetry`: canonical representatives (counters renumbered, names permuted).

Nothing outside this package imports it; it imports only :mod:`spec`.
"""
