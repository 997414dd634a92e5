"""The recorded-run view: header, timeline, film strip, step details, verdict, replay (it hosts the live view).

May import widgets/, live/ and the engine; never shell/, labelling/, repair/ or settings/.
"""
