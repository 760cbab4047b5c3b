"""The source-first archive builder (``perfectplay site build``)."""
