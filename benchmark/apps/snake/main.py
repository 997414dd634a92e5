# SPDX-License-Identifier: GPL-3.0-or-later
"""Snake sample target for PlayCoder Workbench (pygame).

Arrow keys steer, 'r' restarts.  The snake waits on the start row until the
first arrow key, then moves one cell every STEP_FRAMES frames.  The food
glows (its colour and size pulse every frame), so the window is never
static: a stopped picture means the program stopped drawing.
"""

import math
import os
import sys

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402

from snake_logic import COLS, ROWS, Game  # noqa: E402

CELL = 20
HEADER = 40
WIDTH, HEIGHT = COLS * CELL, HEADER + ROWS * CELL
FPS = 30
STEP_FRAMES = 4  # 7.5 cells per second

HEADER_BG = (38, 50, 56)
HEADER_TEXT = (236, 239, 241)
GRASS_A = (170, 215, 81)
GRASS_B = (162, 209, 73)
SNAKE_BODY = (78, 124, 246)
SNAKE_HEAD = (40, 80, 200)
EYE = (255, 255, 255)
PUPIL = (20, 20, 20)
FOOD = (231, 71, 29)
HINT_TEXT = (40, 60, 20)
PANEL = (250, 245, 230)
PANEL_EDGE = (38, 50, 56)
OVER_TEXT = (200, 60, 40)
PANEL_TEXT = (38, 50, 56)

KEY_DIRECTIONS = {
    pygame.K_UP: "up", pygame.K_DOWN: "down",
    pygame.K_LEFT: "left", pygame.K_RIGHT: "right",
}


def cell_rect(cell):
    x, y = cell
    return pygame.Rect(x * CELL, HEADER + y * CELL, CELL, CELL)


def centred(screen, font, message, center, colour):
    label = font.render(message, True, colour)
    screen.blit(label, label.get_rect(center=center))


def draw_board(screen):
    for y in range(ROWS):
        for x in range(COLS):
            colour = GRASS_A if (x + y) % 2 == 0 else GRASS_B
            pygame.draw.rect(screen, colour, cell_rect((x, y)))


def draw_food(screen, food, frame):
    if food is None:
        return
    glow = (1 + math.sin(frame * 0.45)) / 2          # 0..1, changes every frame
    colour = (FOOD[0], int(FOOD[1] + 60 * glow), int(FOOD[2] + 40 * glow))
    radius = CELL // 2 - 3 + round(2 * glow)
    pygame.draw.circle(screen, colour, cell_rect(food).center, radius)


def draw_snake(screen, game):
    for cell in reversed(game.snake[1:]):
        pygame.draw.rect(screen, SNAKE_BODY, cell_rect(cell).inflate(-2, -2), border_radius=5)
    head = cell_rect(game.head)
    pygame.draw.rect(screen, SNAKE_HEAD, head.inflate(-1, -1), border_radius=6)
    dx, dy = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}[game.direction]
    for side in (-1, 1):
        ex = head.centerx + dx * 4 + dy * side * 5
        ey = head.centery + dy * 4 + dx * side * 5
        pygame.draw.circle(screen, EYE, (ex, ey), 3)
        pygame.draw.circle(screen, PUPIL, (ex + dx, ey + dy), 1)


def draw_header(screen, fonts, game):
    pygame.draw.rect(screen, HEADER_BG, (0, 0, WIDTH, HEADER))
    title = fonts["small"].render("SNAKE", True, HEADER_TEXT)
    screen.blit(title, title.get_rect(midleft=(12, HEADER // 2)))
    score = fonts["small"].render("SCORE %d" % game.score, True, HEADER_TEXT)
    screen.blit(score, score.get_rect(midright=(WIDTH - 12, HEADER // 2)))


def draw_panel(screen, fonts, game, blink_on):
    panel = pygame.Rect(0, 0, 300, 140)
    panel.center = (WIDTH // 2, 150)
    pygame.draw.rect(screen, PANEL, panel, border_radius=10)
    pygame.draw.rect(screen, PANEL_EDGE, panel, 3, border_radius=10)
    centred(screen, fonts["big"], "YOU WIN" if game.won else "GAME OVER", (WIDTH // 2, 118), OVER_TEXT)
    centred(screen, fonts["small"], "score %d   length %d" % (game.score, game.length),
            (WIDTH // 2, 158), PANEL_TEXT)
    if blink_on:
        centred(screen, fonts["tiny"], "press R to restart", (WIDTH // 2, 195), PANEL_TEXT)


def draw(screen, fonts, game, frame):
    blink_on = (frame // 15) % 2 == 0
    draw_header(screen, fonts, game)
    draw_board(screen)
    draw_food(screen, game.food, frame)
    draw_snake(screen, game)
    if game.state == "ready" and blink_on:
        centred(screen, fonts["tiny"], "press an arrow key to start", (WIDTH // 2, 340), HINT_TEXT)
    if game.state == "over":
        draw_panel(screen, fonts, game, blink_on)


def main():
    seed = int(os.environ.get("PLAYCODER_SEED", "0"))
    print("snake started seed=%d" % seed, flush=True)

    pygame.init()
    screen = pygame.display.set_mode((WIDTH, HEIGHT))
    pygame.display.set_caption("Snake")
    fonts = {
        "big": pygame.font.Font(None, 56),
        "small": pygame.font.Font(None, 30),
        "tiny": pygame.font.Font(None, 24),
    }
    clock = pygame.time.Clock()
    game = Game(seed)
    frame = 0
    countdown = STEP_FRAMES

    running = True
    while running:
        for event in pygame.event.get():
            if event.type == pygame.QUIT:
                running = False
            elif event.type == pygame.KEYDOWN:
                if event.key in KEY_DIRECTIONS:
                    game.turn(KEY_DIRECTIONS[event.key])
                elif event.key == pygame.K_r:
                    game.reset()
                    countdown = STEP_FRAMES
        if game.state == "playing":
            countdown -= 1
            if countdown <= 0:
                countdown = STEP_FRAMES
                game.step()
        draw(screen, fonts, game, frame)
        pygame.display.flip()
        frame += 1
        clock.tick(FPS)

    pygame.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
