"""Version profiles are named, distinct, and looked up with a clear error."""

from __future__ import annotations

from dataclasses import replace

import pytest

from spec.versions import DEFAULT_PROFILE, PROFILES, V1_35, get_profile


def test_default_is_v1_35_with_expiry_and_lenient_forget() -> None:
    assert DEFAULT_PROFILE is V1_35
    assert V1_35.assumed_pod_expiry and not V1_35.forget_unknown_pod_is_error


def test_profiles_differ_pairwise() -> None:
    behaviours = {replace(p, name="", description="") for p in PROFILES.values()}
    assert len(behaviours) == len(PROFILES)


def test_unknown_profile_names_the_known_ones() -> None:
    known = "v1.34, v1.35, v1.36, v1.37, pr141745"
    with pytest.raises(ValueError, match=rf"unknown version profile .v9.; known profiles: {known}"):
        get_profile("v9")
    assert get_profile("v1.34").name == "v1.34"
