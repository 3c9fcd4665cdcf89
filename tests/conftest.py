"""Settings shared by the whole suite.

Hypothesis' per-example deadline and its too-slow health check measure the
machine, not the code: on CI's two slow cores they fail tests at random. The
suite's speed is watched by the benchmark scripts instead.
"""

from hypothesis import HealthCheck, settings

settings.register_profile("scorehouse", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("scorehouse")
