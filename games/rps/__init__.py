"""The rps game: rules, tournament format, built-in bots, adapter, renderers, docs."""
