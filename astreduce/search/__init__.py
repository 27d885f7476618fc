"""The search: a session (best, cache, counters), the strategies that drive it, the persistent cache."""
