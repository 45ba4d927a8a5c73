"""The judge: runs matches between untrusted bot processes."""

__version__ = "0.1.0"
