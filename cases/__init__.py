"""The case scripts (one per benchmark or study, ``python cases/<name>.py``) and what they share."""
