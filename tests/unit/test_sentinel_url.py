"""`--state-url redis+sentinel://…` (state/sentinel_url.py): the sentinels, the service, the database and the two
passwords read from one URL; a wrong one refused saying what to write, never quoting a password; any other scheme is not
a Sentinel URL."""

from __future__ import annotations

import re

import pytest

from mcp_variants.state.sentinel_url import SentinelAddress, sentinel_address


def test_the_sentinels_the_service_the_database_and_the_passwords() -> None:
    url = "redis+sentinel://:s%40cret@10.0.0.1:26380,sentinel-b,[::1]:26381/shared/3?sentinel_password=theirs"
    assert sentinel_address(url) == SentinelAddress(
        sentinels=(("10.0.0.1", 26380), ("sentinel-b", 26379), ("::1", 26381)), service="shared", db=3,
        username=None, password="s@cret", sentinel_password="theirs")


def test_a_user_and_no_password_and_the_defaults() -> None:
    assert sentinel_address("redis+sentinel://app:pw@h/svc") == SentinelAddress((("h", 26379),), "svc", 0, "app", "pw", None)
    assert sentinel_address("redis+sentinel://h1:1,h2:2/svc/") == SentinelAddress((("h1", 1), ("h2", 2)), "svc")


def test_where_names_the_sentinels_and_the_service_never_a_password() -> None:
    address = sentinel_address("redis+sentinel://:pw@h1:1,[::1]:2/svc/0?sentinel_password=theirs")
    assert address is not None and address.where() == "redis+sentinel://h1:1,[::1]:2/svc"


@pytest.mark.parametrize("url", ["redis://:pw@h:6379/0", "rediss://h:6380/0?ssl_ca_certs=/ca.pem", "unix:///run/redis.sock"])
def test_other_schemes_are_not_sentinel_urls(url: str) -> None:
    assert sentinel_address(url) is None


@pytest.mark.parametrize(("url", "said"), [
    ("redis+sentinel://:pw@/svc", "names no sentinel"),
    ("redis+sentinel://:pw@h1:26379", "needs the service's name"),
    ("redis+sentinel://:pw@h1:26379/svc/0/more", "needs the service's name"),
    ("redis+sentinel://:pw@h1:26379/svc/zero", "where the database number goes"),
    ("redis+sentinel://:pw@h1:port/svc", "not HOST[:PORT]"),
    ("redis+sentinel://:pw@h1/svc?ssl_ca_certs=/ca.pem&timeout=1", "(ssl_ca_certs, timeout): only sentinel_password"),
])
def test_a_wrong_sentinel_url_says_what_to_write_and_never_the_password(url: str, said: str) -> None:
    with pytest.raises(ValueError, match=re.escape(said)) as refused:
        sentinel_address(url)
    assert "pw" not in str(refused.value).replace("PASSWORD", ""), refused.value
