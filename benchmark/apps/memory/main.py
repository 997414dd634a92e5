# SPDX-License-Identifier: GPL-3.0-or-later
"""Memory (pairs) sample target for PlayCoder Workbench (pygame).

Click a face-down card to turn it over, then a second one: a pair stays
face up, two different cards turn back after 0.6 s (or at the next click).
'r' deals a new board.  Nothing moves on screen unless the player acts; the
only change without input is the turning back of a mismatched pair.
"""

import os
import sys

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402

from memory_logic import COLS, ROWS, Game  # noqa: E402

WIDTH, HEIGHT = 420, 480
HEADER = 60
CARD = 90
GAP = 12
BOARD_TOP = HEADER + GAP
FPS = 30
HIDE_DELAY_MS = 600
HINTS = {                       # what the last click did -> the line under the title
    "start": "find the pairs",
    "first": "pick a second card",
    "match": "a pair!",
    "mismatch": "no match",
    "won": "all pairs found",
}

BACKGROUND = (44, 62, 80)
HEADER_TEXT = (236, 240, 241)
HINT_TEXT = (160, 178, 196)
CARD_BACK = (52, 152, 219)
CARD_BACK_EDGE = (133, 193, 233)
CARD_FACE = (250, 250, 245)
MATCHED_FACE = (226, 247, 234)
MATCHED_EDGE = (46, 204, 113)
PANEL = (250, 250, 245)
PANEL_TEXT = (44, 62, 80)
SYMBOL_COLOURS = [
    (231, 76, 60), (41, 128, 185), (39, 174, 96), (230, 126, 34),
    (142, 68, 173), (22, 160, 133), (214, 170, 10), (232, 67, 147),
]


def card_rect(index):
    row, col = divmod(index, COLS)
    return pygame.Rect(GAP + col * (CARD + GAP), BOARD_TOP + row * (CARD + GAP), CARD, CARD)


def card_at(pos):
    for index in range(COLS * ROWS):
        if card_rect(index).collidepoint(pos):
            return index
    return None


def draw_symbol(screen, symbol, rect):
    colour = SYMBOL_COLOURS[symbol]
    cx, cy = rect.center
    r = 26
    if symbol == 0:
        pygame.draw.circle(screen, colour, (cx, cy), r)
    elif symbol == 1:
        pygame.draw.rect(screen, colour, (cx - r + 3, cy - r + 3, 2 * r - 6, 2 * r - 6))
    elif symbol == 2:
        pygame.draw.polygon(screen, colour, [(cx, cy - r), (cx + r, cy + r - 4), (cx - r, cy + r - 4)])
    elif symbol == 3:
        pygame.draw.polygon(screen, colour, [(cx, cy - r), (cx + r, cy), (cx, cy + r), (cx - r, cy)])
    elif symbol == 4:
        pygame.draw.rect(screen, colour, (cx - r, cy - 8, 2 * r, 16))
        pygame.draw.rect(screen, colour, (cx - 8, cy - r, 16, 2 * r))
    elif symbol == 5:
        pygame.draw.circle(screen, colour, (cx, cy), r, 9)
    elif symbol == 6:
        points = [(cx + r * dx, cy + r * dy) for dx, dy in
                  ((1, 0), (0.5, 0.87), (-0.5, 0.87), (-1, 0), (-0.5, -0.87), (0.5, -0.87))]
        pygame.draw.polygon(screen, colour, points)
    else:
        for dy in (-14, 2):
            pygame.draw.rect(screen, colour, (cx - r, cy + dy, 2 * r, 12), border_radius=4)


def draw_card(screen, fonts, game, index):
    rect = card_rect(index)
    if not game.visible(index):
        pygame.draw.rect(screen, CARD_BACK, rect, border_radius=8)
        pygame.draw.rect(screen, CARD_BACK_EDGE, rect.inflate(-14, -14), 3, border_radius=6)
        mark = fonts["card"].render("?", True, CARD_BACK_EDGE)
        screen.blit(mark, mark.get_rect(center=rect.center))
        return
    matched = game.matched[index]
    pygame.draw.rect(screen, MATCHED_FACE if matched else CARD_FACE, rect, border_radius=8)
    if matched:
        pygame.draw.rect(screen, MATCHED_EDGE, rect, 4, border_radius=8)
    draw_symbol(screen, game.cards[index], rect)


def draw_header(screen, fonts, game, hint):
    title = fonts["title"].render("Memory", True, HEADER_TEXT)
    screen.blit(title, title.get_rect(topleft=(GAP, 6)))
    line = fonts["hint"].render(hint, True, HINT_TEXT)
    screen.blit(line, line.get_rect(topleft=(GAP + 2, 38)))
    moves = fonts["small"].render("Moves: %d" % game.moves, True, HEADER_TEXT)
    screen.blit(moves, moves.get_rect(topright=(WIDTH - GAP, 10)))
    pairs = fonts["small"].render("Pairs: %d/%d" % (game.found, game.pairs), True, HEADER_TEXT)
    screen.blit(pairs, pairs.get_rect(topright=(WIDTH - GAP, 34)))


def draw_win(screen, fonts, game):
    veil = pygame.Surface((WIDTH, HEIGHT - HEADER), pygame.SRCALPHA)
    veil.fill((44, 62, 80, 170))
    screen.blit(veil, (0, HEADER))
    panel = pygame.Rect(0, 0, 320, 150)
    panel.center = (WIDTH // 2, HEADER + (HEIGHT - HEADER) // 2)
    pygame.draw.rect(screen, PANEL, panel, border_radius=12)
    pygame.draw.rect(screen, MATCHED_EDGE, panel, 4, border_radius=12)
    for text, font, dy in (("You win!", "title", -38), ("all pairs in %d moves" % game.moves, "small", 8),
                           ("press R to play again", "small", 44)):
        label = fonts[font].render(text, True, PANEL_TEXT)
        screen.blit(label, label.get_rect(center=(panel.centerx, panel.centery + dy)))


def draw(screen, fonts, game, hint):
    screen.fill(BACKGROUND)
    draw_header(screen, fonts, game, hint)
    for index in range(len(game.cards)):
        draw_card(screen, fonts, game, index)
    if game.won:
        draw_win(screen, fonts, game)


def play(game):
    screen = pygame.display.set_mode((WIDTH, HEIGHT))
    pygame.display.set_caption("Memory")
    fonts = {
        "title": pygame.font.Font(None, 42),
        "small": pygame.font.Font(None, 28),
        "hint": pygame.font.Font(None, 22),
        "card": pygame.font.Font(None, 56),
    }
    clock = pygame.time.Clock()
    hide_at = None
    hint = HINTS["start"]

    running = True
    while running:
        for event in pygame.event.get():
            if event.type == pygame.QUIT:
                running = False
            elif event.type == pygame.KEYDOWN and event.key == pygame.K_r:
                game.reset()
                hide_at = None
                hint = HINTS["start"]
            elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
                index = card_at(event.pos)
                result = "ignored" if index is None else game.flip(index)
                if result != "ignored":
                    hint = HINTS[result]
                if result == "mismatch":
                    hide_at = pygame.time.get_ticks() + HIDE_DELAY_MS
        if hide_at is not None and pygame.time.get_ticks() >= hide_at:
            game.hide_mismatch()
            hide_at = None
        draw(screen, fonts, game, hint)
        pygame.display.flip()
        clock.tick(FPS)


def main():
    seed = int(os.environ.get("PLAYCODER_SEED", "0"))
    print("memory started seed=%d" % seed, flush=True)

    pygame.init()
    try:
        play(Game(seed))
    finally:
        pygame.quit()  # close the window even when the game loop raises
    return 0


if __name__ == "__main__":
    sys.exit(main())
