"""Sphinx configuration of the xmpacc user guide (``make docs``).

The pages are Markdown (MyST).  ``make docs`` runs ``sphinx-build -W --keep-going -n``:
every warning, a broken cross-reference included, fails the build.  The goals plot of
the performance page is drawn from bench/results/ at build time (``_ext/goals_plot.py``),
so the build needs nothing beyond the ``docs`` extra.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

project = "xmpacc"
author = "the xmpacc developers"
copyright = "the xmpacc developers"
release = re.search(r'^version = "([^"]+)"', (HERE.parent / "pyproject.toml").read_text(),
                    re.MULTILINE).group(1)
version = release

extensions = ["myst_parser", "goals_plot"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_generated", "results/device-runs", "results/profile"]
myst_heading_anchors = 3
highlight_language = "none"

html_theme = "alabaster"
html_title = f"xmpacc {release}"
html_theme_options = {"description": "XcalableMP-ACC on clusters of GPUs", "fixed_sidebar": True}
