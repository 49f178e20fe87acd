"""The Friday/Monday evaluation: how well each memory mode remembers a developer.

fixture.py and sources.py (with the C# in solution/) make the repository, dotnet_standin.py
its compiler; harness.py runs the sessions; turn_records.py holds what was said and done,
records_from_events.py fills it in from a session's events; scoring.py decides what was
right; report.py writes the table, the JSON and the chart.
"""
