"""The Friday/Monday evaluation: how well each memory mode remembers a developer.

scenarios.py names the scenarios: csharp.py (the C# rename; fixture.py and sources.py with
the C# in solution/ make its repository, dotnet_standin.py its compiler, scoring.py and
finish.py its rules) and fareshare.py (a Python release checklist; fareshare_fixture.py
with fareshare_repo/, fareshare_scoring.py). harness.py runs them, sessions.py holds what
their sessions share; turn_records.py holds what was said and done, records_from_events.py
fills it in from a session's events; report.py, fareshare_report.py and side_by_side.py
write the tables, the JSON and the chart.
"""
