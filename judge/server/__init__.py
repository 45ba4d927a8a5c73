"""The judge server: accounts, bot uploads, a match queue, tournaments, a ladder and web pages.

``judge serve`` runs everything in one trio process; see docs/server.md.
"""
