"""The run lifecycle of a case: command line, status, exit codes, summary (floor 7)."""
