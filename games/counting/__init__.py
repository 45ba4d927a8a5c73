"""The counting game: rules, tournament format, built-in bots, adapter, renderers, docs."""
