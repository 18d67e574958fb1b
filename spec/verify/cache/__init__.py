"""The cache's verification: its transition system, universe and symmetry for the model checker, and its Z3 proofs
(symbolic state, transitions, abstraction, obligations)."""
