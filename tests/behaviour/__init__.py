"""Behavioural tests of the rendered queues, through qgen.client, on each database (a package: see backends.py)."""
