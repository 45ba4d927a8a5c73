"""Tron (light cycles), as the 2010 Google AI Challenge played it: rules, maps, format, bots."""
