"""Hypothesis settings profiles, chosen with the HYPOTHESIS_PROFILE environment variable (default: dev).

- ``ci``: reproducible (derandomized) runs that print a reproduction blob on failure.
- ``dev``: random exploration with the default example budget.
- ``thorough``: twenty times the example budget, for local soak runs.
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    max_examples=100,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.register_profile("thorough", max_examples=2000, deadline=None)

settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
