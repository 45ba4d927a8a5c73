"""Commands of the judge CLI, one module per area; each exposes COMMANDS."""
