"""Python source as astreduce sees it: the tree model, its rendering, names and imports.

* :mod:`~astreduce.source.tree` parses a module once and numbers its nodes with their spans;
* :mod:`~astreduce.source.render` is the NodeReducer: a keep-list of edits to candidate text;
* :mod:`~astreduce.source.scope` analyses names (bindings and uses) for the transforms that need it;
* :mod:`~astreduce.source.imports` tells who imports whom in a tree of files;
* :mod:`~astreduce.source.syntax` checks that a text parses (here or under ``--python``);
* :mod:`~astreduce.source.foreign` reads a tree parsed by another interpreter;
* :mod:`~astreduce.source.precedence` parenthesises an expression moved to a new place;
* :mod:`~astreduce.source.measure` says how big a text is (tokens, identifiers, bytes, lines).
"""
