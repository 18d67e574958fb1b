"""The scheduling pipeline's verification: its transition system for the model checker, and its Z3 proofs (symbolic
state, transitions, abstraction, obligations)."""
