"""The shaking table (cases/shaking_table.py): its configuration, report and summary."""
