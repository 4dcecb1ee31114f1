"""Trust: checking answers and claims."""
