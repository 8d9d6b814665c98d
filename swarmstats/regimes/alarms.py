"""What the two online detectors (CUSUM, BOCPD) report the same way: their alarms."""

from __future__ import annotations

#: alarms listed in a summary line; more are counted
SHOWN = 10


def alarm_records(alarms) -> list:
    """(alarm index, estimated start) pairs as the records a result carries."""
    return [{"index": int(index), "start": int(start)} for index, start in alarms]


def alarms_text(alarms: list) -> str:
    """"2 alarm(s), changes estimated to start at 200, 480" (the first ``SHOWN`` starts).

    >>> alarms_text([{"index": 205, "start": 200}])
    '1 alarm(s), changes estimated to start at 200'
    """
    starts = ", ".join(str(alarm["start"]) for alarm in alarms[:SHOWN])
    more = f" and {len(alarms) - SHOWN} more" if len(alarms) > SHOWN else ""
    return f"{len(alarms)} alarm(s), changes estimated to start at {starts}{more}"


def outcome_text(alarms: list, n: int, reference_points: int) -> str:
    """The alarms in words, or why there are none: a stream shorter than the stretch the
    reference is learnt from was never judged, and "no alarm" would claim it was quiet.

    >>> outcome_text([], 80, 100)
    'no alarm possible: 80 points, fewer than the 100 the reference is learnt from'
    >>> outcome_text([], 500, 100)
    'no alarm'
    """
    if alarms:
        return alarms_text(alarms)
    if reference_points and n < reference_points:
        return (f"no alarm possible: {n} points, fewer than the {reference_points} the "
                "reference is learnt from")
    return "no alarm"
