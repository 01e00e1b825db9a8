"""xmpacc: a compiler and runtime for XcalableMP-ACC (C with #pragma xmp directives)."""

__version__ = "0.1.0"
