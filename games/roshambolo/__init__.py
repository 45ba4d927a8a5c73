"""The roshambolo game: rules, tournament format, built-in bots, adapter, renderers, docs."""
