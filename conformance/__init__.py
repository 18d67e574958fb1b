"""Conformance floor: test vectors, the adapter protocol, the runner and the ``ksspec`` CLI.

It may use ``spec`` (to generate vectors and run the checkers) and ``refimpl`` (the bundled adapter);
nothing below it may import it.
"""
