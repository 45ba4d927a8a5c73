"""Contests: a definition (when, who, how many submissions, the final round), the final
round's results with confidence intervals, and the archive anyone can verify.

This package is the part that needs no server: ``judge contest verify`` runs it on an
archive alone, and the server computes its published results with the same functions.
"""
