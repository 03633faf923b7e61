"""skilltui: what your coding agent actually sees, and why."""

__version__ = "0.1.0"
