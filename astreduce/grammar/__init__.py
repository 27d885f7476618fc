"""Grammar-based reduction of inputs that are not Python: ``astreduce reduce INPUT --grammar G.lark``.

``derivation`` parses the input once with Lark (Earley: any context-free
grammar) into a derivation tree whose tokens remember their place, builds
candidates on it and renders them back with the input's spacing;
``search`` replaces subtrees breadth first from the root, testing every
candidate through the shared session and scheduler.
"""

from astreduce.grammar.derivation import Grammar, Leaf, RuleNode, render
from astreduce.grammar.search import GrammarSearch

__all__ = ["Grammar", "GrammarSearch", "Leaf", "RuleNode", "render"]
