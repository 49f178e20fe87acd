"""Verified dates and aging, on an injected clock."""

from __future__ import annotations

from datetime import date, datetime

from memory.freshness import freshness, verified_bumped, verified_date, with_verified

DAY = 86400.0
NOW = datetime(2026, 12, 20, 12, 0).astimezone().timestamp()
NOTE = "---\nname: core\ntype: project\ndescription: the project that matters\n---\nThe Core project matters.\n"


def test_a_memory_written_long_ago_is_aging():
    f = freshness(NOTE, modified=NOW - 31 * DAY, now=NOW)
    assert f.aging and 30.9 < f.age_days < 31.1 and f.verified is None


def test_a_recent_write_is_fresh():
    assert not freshness(NOTE, modified=NOW - 29 * DAY, now=NOW).aging


def test_verifying_makes_an_old_memory_fresh_again():
    verified = with_verified(NOTE, date(2026, 12, 18))
    f = freshness(verified, modified=NOW - 90 * DAY, now=NOW)
    assert f.verified == date(2026, 12, 18) and not f.aging and f.age_days < 2


def test_aging_days_is_configurable():
    assert freshness(NOTE, modified=NOW - 8 * DAY, now=NOW, aging_days=7).aging
    assert not freshness(NOTE, modified=NOW - 8 * DAY, now=NOW, aging_days=10).aging


def test_a_verified_date_in_the_future_verifies_nothing():
    future = with_verified(NOTE, date(2030, 1, 1))
    assert freshness(future, modified=NOW - 90 * DAY, now=NOW).aging
    assert not freshness(future, modified=NOW - 2 * DAY, now=NOW).aging


def test_with_verified_replaces_or_adds_one_line():
    once = with_verified(NOTE, date(2026, 11, 9))
    assert once == NOTE.replace("---\nThe Core", "verified: 2026-11-09\n---\nThe Core")
    twice = with_verified(once, date(2026, 12, 1))
    assert twice.count("verified:") == 1 and verified_date(twice) == date(2026, 12, 1)
    bare = with_verified("just a note\n", date(2026, 12, 1))
    assert bare == "---\nverified: 2026-12-01\n---\njust a note\n"


def test_verified_bumped_only_when_the_date_moves_forward():
    old = with_verified(NOTE, date(2026, 11, 9))
    assert verified_bumped(NOTE, old)
    assert verified_bumped(old, with_verified(NOTE, date(2026, 11, 10)))
    assert not verified_bumped(old, old.replace("matters.", "matters most."))
    assert not verified_bumped(old, with_verified(NOTE, date(2026, 11, 1)))
    assert verified_date("---\nverified: 2026-13-45\n---\n") is None
