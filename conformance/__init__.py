"""The conformance suite: vectors, the adapter protocol, the runner and the ``ksspec`` command line.

At the top, the suite's machinery: :mod:`~conformance.format` (vectors and their schema), :mod:`~conformance.protocol`,
:mod:`~conformance.sessions`, :mod:`~conformance.codec`, :mod:`~conformance.observe`, :mod:`~conformance.runner`,
:mod:`~conformance.report` and :mod:`~conformance.generate`. Below it: :mod:`conformance.scenarios` (curated
scenarios, one module per area), :mod:`conformance.ported` (Kubernetes' own table tests, one module per Go test
file), :mod:`conformance.behaviours` (the behaviour inventory), :mod:`conformance.adapters` (the reference
adapters), :mod:`conformance.simulation` (invariants checked on a running simulation) and :mod:`conformance.cli`
(one module per ``ksspec`` subcommand).

It may use ``spec`` (to generate vectors and run the checkers) and ``refimpl`` (the bundled adapter); nothing below
it may import it.
"""
