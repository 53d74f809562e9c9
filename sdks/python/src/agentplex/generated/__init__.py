"""Code generated from ``docs/openapi.json`` (``scripts/generate_models.py``)."""
