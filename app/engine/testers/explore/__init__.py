"""The model-free explorer's parts, one idea a module.

- :mod:`.keys_from_code`: the keys and mouse buttons a program reads, from its source.
- :mod:`.archive`: Go-Explore's archive of reached cells and which one to explore from next.
- :mod:`.returns`: back to a cell by restarting the program and replaying its input prefix.
- :mod:`.survival`: in a real-time game on the frame gate, plans played ahead on a scout; the one that lives.
- :mod:`.scout_pool`: warm scouts, started and replayed in the background so the game never waits for one.
- :mod:`.forms`: what testers type into entries and do to lists, menus and canvases.
"""
