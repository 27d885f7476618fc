"""Reductions from start to verified end: one file (:mod:`.single`), a tree of files (:mod:`.tree`),
merging modules (:mod:`.merge`), and the JSON report with the exit statuses (:mod:`.report`)."""
