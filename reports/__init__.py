"""Every table and plot made from the run CSVs (the rows the executables append with --csv).

  PYTHONPATH=REPO python3 -m reports compare|sweep|bandwidth|scaling|shapes|validation ARGS...
  python3 -m reports tables --write   (docs/results.md's and README's tables from docs/data/)

runs.py reads the CSVs by column name, plots.py sets up matplotlib; one module per report.
"""
