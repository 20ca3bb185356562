"""Adapters of thresher to other frameworks, one module each, each importing its framework itself."""
