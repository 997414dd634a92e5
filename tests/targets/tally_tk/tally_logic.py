"""The tally's arithmetic, apart from its window so that its unit tests need no display."""


def combine(op: str, a: int, b: int) -> int:
    """``a op b`` for the tally's two operations."""
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    raise ValueError(f"unknown operation {op!r}")


def average(values: list[int]) -> int:
    """The whole-number mean of the values entered since the last clear (0 when there are none)."""
    if not values:
        return 0
    return sum(values) // len(values)


def clip(text: str, width: int = 9) -> str:
    """What the display shows of a number: its last ``width`` characters."""
    return text[-width:]
