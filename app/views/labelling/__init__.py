"""Human validation windows: new set, blinded labelling by keyboard, agreement dashboard.

May import widgets/ and the engine (study/, trace/); never shell/, live/, run/ or repair/.
"""
