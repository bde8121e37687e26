"""Settings every test folder shares."""

from hypothesis import HealthCheck, settings

# Property tests check behaviour, not speed: on a shared 2-core machine a slow draw is the machine's, not a bug.
settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("default")
