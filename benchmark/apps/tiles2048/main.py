# SPDX-License-Identifier: GPL-3.0-or-later
"""2048 sample target for PlayCoder Workbench (pygame).

Arrow keys or WASD slide the tiles, 'r' restarts.  Nothing moves on screen
unless a key is pressed: the frame is redrawn 30 times a second, but its
content only changes on input.
"""

import os
import sys

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402

from tiles2048_logic import Game

WIDTH, HEIGHT = 480, 560
HEADER = 80
MARGIN = 12
CELL = (WIDTH - 5 * MARGIN) // 4

BACKGROUND = (250, 248, 239)
BOARD = (187, 173, 160)
EMPTY = (205, 193, 180)
DARK_TEXT = (119, 110, 101)
LIGHT_TEXT = (249, 246, 242)
TILE_COLOURS = {
    2: (238, 228, 218), 4: (237, 224, 200), 8: (242, 177, 121),
    16: (245, 149, 99), 32: (246, 124, 95), 64: (246, 94, 59),
    128: (237, 207, 114), 256: (237, 204, 97), 512: (237, 200, 80),
    1024: (237, 197, 63), 2048: (237, 194, 46),
}
BIG_TILE = (60, 58, 50)

KEY_DIRECTIONS = {
    pygame.K_LEFT: "left", pygame.K_a: "left",
    pygame.K_RIGHT: "right", pygame.K_d: "right",
    pygame.K_UP: "up", pygame.K_w: "up",
    pygame.K_DOWN: "down", pygame.K_s: "down",
}


def tile_colour(value):
    return TILE_COLOURS.get(value, BIG_TILE)


def text_colour(value):
    return DARK_TEXT if value <= 4 else LIGHT_TEXT


def cell_rect(row, col):
    x = MARGIN + col * (CELL + MARGIN)
    y = HEADER + MARGIN + row * (CELL + MARGIN)
    return pygame.Rect(x, y, CELL, CELL)


def restart(game):
    """Start a new game and return a one-line summary of the old one."""
    summary = "last game: %d points in %d moves" % (game.score, game.moves)
    game.reset()
    return summary


def draw(screen, fonts, game, status):
    screen.fill(BACKGROUND)
    title = fonts["title"].render("2048", True, DARK_TEXT)
    screen.blit(title, (MARGIN, 14))

    score_box = pygame.Rect(WIDTH - 170, 10, 158, 44)
    pygame.draw.rect(screen, BOARD, score_box, border_radius=6)
    score = fonts["small"].render("SCORE %d" % game.score, True, LIGHT_TEXT)
    screen.blit(score, score.get_rect(center=score_box.center))

    hint = fonts["tiny"].render(status, True, DARK_TEXT)
    screen.blit(hint, (MARGIN, 60))

    board_rect = pygame.Rect(0, HEADER, WIDTH, WIDTH)
    pygame.draw.rect(screen, BOARD, board_rect)
    for r, row in enumerate(game.board):
        for c, value in enumerate(row):
            rect = cell_rect(r, c)
            if not value:
                pygame.draw.rect(screen, EMPTY, rect, border_radius=6)
                continue
            pygame.draw.rect(screen, tile_colour(value), rect, border_radius=6)
            font = fonts["tile"] if value < 1000 else fonts["tile_small"]
            label = font.render(str(value), True, text_colour(value))
            screen.blit(label, label.get_rect(center=rect.center))

    if game.over:
        veil = pygame.Surface(board_rect.size, pygame.SRCALPHA)
        veil.fill((238, 228, 218, 190))
        screen.blit(veil, board_rect.topleft)
        panel = pygame.Rect(0, 0, 360, 130)
        panel.center = (WIDTH // 2, HEADER + WIDTH // 2)
        pygame.draw.rect(screen, BACKGROUND, panel, border_radius=10)
        pygame.draw.rect(screen, DARK_TEXT, panel, width=3, border_radius=10)
        over = fonts["title"].render("Game over!", True, DARK_TEXT)
        screen.blit(over, over.get_rect(center=(WIDTH // 2, HEADER + WIDTH // 2 - 20)))
        again = fonts["small"].render("press R to play again", True, DARK_TEXT)
        screen.blit(again, again.get_rect(center=(WIDTH // 2, HEADER + WIDTH // 2 + 30)))


def main():
    seed = int(os.environ.get("PLAYCODER_SEED", "0"))
    print("tiles2048 started seed=%d" % seed, flush=True)

    pygame.init()
    screen = pygame.display.set_mode((WIDTH, HEIGHT))
    pygame.display.set_caption("2048")
    fonts = {
        "title": pygame.font.Font(None, 64),
        "tile": pygame.font.Font(None, 60),
        "tile_small": pygame.font.Font(None, 44),
        "small": pygame.font.Font(None, 30),
        "tiny": pygame.font.Font(None, 22),
    }
    clock = pygame.time.Clock()
    game = Game(seed)
    status = "arrows / WASD to move, R to restart"

    running = True
    while running:
        for event in pygame.event.get():
            if event.type == pygame.QUIT:
                running = False
            elif event.type == pygame.KEYDOWN:
                if event.key in KEY_DIRECTIONS:
                    game.move(KEY_DIRECTIONS[event.key])
                elif event.key == pygame.K_r:
                    status = restart(game)
        draw(screen, fonts, game, status)
        pygame.display.flip()
        clock.tick(30)

    pygame.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
