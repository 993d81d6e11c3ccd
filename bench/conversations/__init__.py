"""Follow-up questions in conversations over real data: Trove's rewrite against the same follow-ups
asked standalone by hand (the ceiling) and as typed (the baseline), in one run. See `__main__`."""
