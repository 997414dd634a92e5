"""A turtle board written the ordinary way: a click puts a dot in its column's lowest free cell.

The dot is drawn on the next timer tick, not in the click handler, and a full column takes no
more dots: clicking it again changes nothing.  The program reads no keys.
"""

from turtle import dot, done, goto, hideturtle, onscreenclick, ontimer, setup, tracer, up, update

CELL = 40
COLUMNS = 4
ROWS = 3
heights = [0] * COLUMNS
pending: list[tuple[int, int]] = []


def tap(x: float, y: float) -> None:
    column = min(COLUMNS - 1, max(0, int((x + COLUMNS * CELL / 2) // CELL)))
    if heights[column] < ROWS:
        pending.append((column, heights[column]))
        heights[column] += 1


def tick() -> None:
    while pending:
        column, row = pending.pop(0)
        up()
        goto(column * CELL - COLUMNS * CELL / 2 + CELL / 2, row * CELL - ROWS * CELL / 2 + CELL / 2)
        dot(30, "navy")
    update()
    ontimer(tick, 150)


setup(420, 320, 0, 0)
hideturtle()
tracer(False)
goto(0, 0)
dot(6, "grey")
update()
onscreenclick(tap)
ontimer(tick, 150)
done()
