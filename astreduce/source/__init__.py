"""Python source as astreduce sees it: the tree model, its rendering, names and imports.

* :mod:`~astreduce.source.tree` parses a module once and numbers its nodes with their spans;
* :mod:`~astreduce.source.render` is the NodeReducer: a keep-list of edits to candidate text;
* :mod:`~astreduce.source.scope` analyses names (bindings and uses) for the transforms that need it;
* :mod:`~astreduce.source.imports` tells who imports whom in a tree of files.
"""
