"""The scheduling queue's verification: its transition system, universe, representatives and the broken queues the
model checker must catch."""
