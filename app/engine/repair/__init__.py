"""The repair loop of PlayCoder: PlayDeveloper writes, PlayTester plays, PlayRefiner patches.

Modules: ``sandbox`` (confined copies and execution), ``tools`` (search,
read, validate, unit tests), ``checks`` (the build + tests gate),
``localize`` and ``diagnosis`` (what failed and where), ``mutations`` and
``offline_refiner`` (search-based repair), ``chat``, ``llm_refiner`` and
``developer`` (the model-driven agents), ``patching`` (diffs and atomic
application), ``loop`` (the iterations) and ``records`` (how cycles are
stored in ``patches``).  Nothing here imports Qt.
"""
