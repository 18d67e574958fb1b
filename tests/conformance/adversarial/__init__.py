"""Adapters that misbehave the way adapters in other projects' CI do, and the test that runs ``ksspec conform``
against each of them."""
