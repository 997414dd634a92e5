"""One run: its settings, the session that conducts it, the step loop, and what a run records beside its steps."""
