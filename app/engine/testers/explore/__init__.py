"""The model-free explorer's parts, one idea a module.

- :mod:`.keys_from_code`: the keys and mouse buttons a program reads, from its source.
- :mod:`.archive`: Go-Explore's archive of reached cells and which one to explore from next.
- :mod:`.returns`: back to a cell by restarting the program and replaying its input prefix.
- :mod:`.survival`: in a real-time game on the frame gate, plans played ahead on a scout; the one that lives.
- :mod:`.fork_scout`: the survival search's scouts, branches forked from a copy that follows the game.
- :mod:`.strategies`: how the explorer chooses, an ordered list of strategies over one shared :mod:`.state`.
- :mod:`.forms`: what testers type into entries and do to lists, menus and canvases.
"""
