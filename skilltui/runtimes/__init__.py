"""Runtime rule sets. Each module is pinned to one runtime version and exposes:

    NAME: str, VERSION: str
    discover(opts: Options) -> Catalog      # never writes, never raises on bad input (diagnostics instead)

Adding a runtime version means a new module (or a new rule table) registered here, not edits elsewhere.
"""

from __future__ import annotations

import importlib

from skilltui.model import Catalog, Options

RUNTIMES = {"claude": "skilltui.runtimes.claude", "codex": "skilltui.runtimes.codex", "omp": "skilltui.runtimes.omp"}


def runtime_module(name: str):
    return importlib.import_module(RUNTIMES[name])


def discover(opts: Options) -> Catalog:
    return runtime_module(opts.runtime).discover(opts)
