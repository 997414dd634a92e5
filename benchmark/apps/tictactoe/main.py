# SPDX-License-Identifier: GPL-3.0-or-later
"""Tic-tac-toe sample target for PlayCoder Workbench (Tk).

Two players share the keyboard and mouse: click a cell or press 1-9 (row
by row: 1 2 3 is the top row, 7 8 9 the bottom row).  'n' or the "New game"
button clears the board.  The window only changes when a move is made or a
new game starts: the buttons have no hover highlight.
"""

import os
import sys
import tkinter as tk

from tictactoe_logic import Game, cell_for_key

WIDTH, HEIGHT = 300, 360
WINDOW_BG = "#f3efe6"
TEXT = "#333333"
GRID_LINES = "#8a7f6e"
CELL_BG = "#fffdf7"
WIN_BG = "#ffe08a"
MARK_COLOURS = {"X": "#2f6fd0", "O": "#d9432f"}
BUTTON_BG, BUTTON_FG = "#5a6b7b", "#ffffff"

CELL = 82
GAP = 6
BOARD = 3 * CELL + 2 * GAP        # 258
BOARD_X, BOARD_Y = (WIDTH - BOARD) // 2, 48
STATUS_Y = 0
BAR_Y = BOARD_Y + BOARD + 10      # the New game button and the tally


def status_text(game):
    if game.winner is not None:
        return "%s wins!" % game.winner
    if game.draw:
        return "Draw!"
    return "%s to move" % game.turn


def tally_text(game):
    return "X %d   O %d   draws %d" % (game.tally["X"], game.tally["O"], game.tally["draw"])


class TicTacToeWindow:
    def __init__(self, root):
        self.root = root
        self.game = Game()
        root.title("Tic-tac-toe")
        root.geometry("%dx%d" % (WIDTH, HEIGHT))
        root.resizable(False, False)
        root.configure(bg=WINDOW_BG)

        self.status = tk.Label(root, text="", bg=WINDOW_BG, fg=TEXT, font=("DejaVu Sans", 18, "bold"))
        self.status.place(x=0, y=STATUS_Y, width=WIDTH, height=46)

        board = tk.Frame(root, bg=GRID_LINES)
        board.place(x=BOARD_X, y=BOARD_Y, width=BOARD, height=BOARD)
        self.cells = []
        for index in range(9):
            row, col = divmod(index, 3)
            cell = tk.Button(board, text="", bg=CELL_BG, activebackground=CELL_BG, relief="flat", bd=0,
                             highlightthickness=0, font=("DejaVu Sans", 40, "bold"),
                             command=lambda i=index: self.play(i))
            cell.place(x=col * (CELL + GAP), y=row * (CELL + GAP), width=CELL, height=CELL)
            self.cells.append(cell)

        self.new_button = tk.Button(root, text="New game", bg=BUTTON_BG, fg=BUTTON_FG,
                                    activebackground=BUTTON_BG, activeforeground=BUTTON_FG,
                                    relief="flat", bd=0, highlightthickness=0,
                                    font=("DejaVu Sans", 13, "bold"), command=self.new_game)
        self.new_button.place(x=BOARD_X, y=BAR_Y, width=110, height=34)
        self.tally = tk.Label(root, text="", bg=WINDOW_BG, fg=TEXT, anchor="e", font=("DejaVu Sans", 11))
        self.tally.place(x=BOARD_X + 116, y=BAR_Y, width=BOARD - 116, height=34)

        root.bind("<Key>", self.on_key)
        self.refresh()

    def on_key(self, event):
        if event.char in ("n", "N"):
            self.new_game()
            return
        index = cell_for_key(event.char)
        if index is not None:
            self.play(index)

    def play(self, index):
        if not self.game.play(index):
            return  # taken cell or finished game: nothing happens
        self.refresh()

    def new_game(self):
        self.game.new_game()
        self.refresh()

    def refresh(self):
        game = self.game
        for index, cell in enumerate(self.cells):
            mark = game.board[index]
            bg = WIN_BG if game.line is not None and index in game.line else CELL_BG
            fg = MARK_COLOURS.get(mark, TEXT)
            cell.configure(text=mark or "", bg=bg, activebackground=bg, fg=fg, activeforeground=fg)
        self.status.configure(text=status_text(game))
        self.tally.configure(text=tally_text(game))


def main():
    seed = int(os.environ.get("PLAYCODER_SEED", "0"))
    print("tictactoe started seed=%d" % seed, flush=True)
    root = tk.Tk()
    TicTacToeWindow(root)
    root.protocol("WM_DELETE_WINDOW", root.destroy)
    root.after(100, root.focus_force)
    root.mainloop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
