"""The cluster's verification: its transition system for the model checker, and its Z3 proofs (symbolic state,
obligations)."""
