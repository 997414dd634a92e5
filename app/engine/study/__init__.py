"""Human validation: blinded 100/100 sets, annotations and agreement statistics.

May import trace/ and errors; never play/, testers/, bench/, repair/ or Qt.
"""
