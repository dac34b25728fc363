"""Comparison reports from sweep directories: collect ``metrics.json`` files, tabulate, plot.

Used by ``forecast-compare``; :func:`forecast.report.build.write_report` is the entry point.
"""
