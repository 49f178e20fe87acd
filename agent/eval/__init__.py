"""The Friday/Monday evaluation: how well each memory mode remembers a developer.

fixture.py and sources.py make the repository, dotnet_standin.py its compiler; harness.py
runs the sessions; record.py and recorder.py keep what was said and done; scoring.py decides
what was right; report.py writes the table, the JSON and the chart.
"""
