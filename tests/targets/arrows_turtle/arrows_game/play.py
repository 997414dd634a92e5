"""A turtle board played with the arrow keys and the mouse: an arrow moves the dot one cell, a click puts
a mark where it lands.  Escape ends the game.  It has no widgets but its canvas and reads no typed text."""

from turtle import bye, clear, dot, done, goto, hideturtle, listen, onkey, onscreenclick, setup, tracer, up, update

CELL = 30
where = [0, 0]
marks: list[tuple[float, float]] = []


def draw() -> None:
    clear()
    for x, y in marks:
        goto(x, y)
        dot(10, "red")
    goto(where[0] * CELL, where[1] * CELL)
    dot(20, "navy")
    update()


def move(dx: int, dy: int) -> None:
    where[0] = max(-5, min(5, where[0] + dx))
    where[1] = max(-4, min(4, where[1] + dy))
    print(f"moved to {where[0]},{where[1]}", flush=True)
    draw()


def mark(x: float, y: float) -> None:
    marks.append((x, y))
    print(f"marked {round(x)},{round(y)}", flush=True)
    draw()


setup(400, 300, 0, 0)
hideturtle()
tracer(False)
up()
draw()
onkey(lambda: move(0, 1), "Up")
onkey(lambda: move(0, -1), "Down")
onkey(lambda: move(-1, 0), "Left")
onkey(lambda: move(1, 0), "Right")
onkey(bye, "Escape")
onscreenclick(mark)
listen()
done()
