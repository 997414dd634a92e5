"""Benchmarks: bug detection, Play@k over candidates, parallel job runs and the @k metrics.

May import everything in the engine below it (play, judge, trace, testers, session); never Qt or the views.
"""
