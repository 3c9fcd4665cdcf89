"""The static leaderboard site (``scorehouse site --output DIR``): data export in Python, hand-written JS/CSS.

:mod:`reports.site.gather` reads the warehouse, :mod:`reports.site.model` turns
one benchmark into JSON-ready columns, :mod:`reports.site.pages` writes the
HTML shells and data scripts, :mod:`reports.site.build` lays the folder out;
the scripts in ``assets/`` draw the pages in the browser.  See docs/site.md.
"""
