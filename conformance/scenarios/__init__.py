"""Curated scenarios, one module per area: :mod:`~conformance.scenarios.cache`, :mod:`~conformance.scenarios.accounting`
(the cache's pod and node shapes), :mod:`~conformance.scenarios.queue`, :mod:`~conformance.scenarios.cycle`, and
:mod:`~conformance.scenarios.mutation` (what mutation testing showed missing); :mod:`~conformance.scenarios.shapes`
builds the pods and nodes they share."""
