# SPDX-License-Identifier: GPL-3.0-or-later
# Match Pairs - a full screen memory game with pygame.
#
# Click two cards to turn them over. Same letter: they stay up.
# Different: they turn back after a moment. Find all 8 pairs!
# R deals a new game, ESC quits.

import os
import random
import sys

import pygame

ROWS = 4
COLS = 4
LETTERS = "ABCDEFGH"
LETTER_COLOURS = {
    "A": (220, 40, 40), "B": (30, 140, 60), "C": (40, 80, 220), "D": (230, 130, 0),
    "E": (150, 40, 180), "F": (0, 150, 160), "G": (120, 80, 30), "H": (220, 40, 140),
}
BG = (30, 90, 60)
CARD_BACK = (50, 70, 160)
CARD_BACK_HOVER = (90, 115, 220)
CARD_FACE = (250, 250, 240)
WHITE = (255, 255, 255)
YELLOW = (255, 230, 90)

if os.environ.get("PLAYCODER_SEED"):
    random.seed(int(os.environ["PLAYCODER_SEED"]))

pygame.init()
screen = pygame.display.set_mode((0, 0), pygame.FULLSCREEN)
WIDTH, HEIGHT = screen.get_size()
pygame.display.set_caption("Match Pairs")
clock = pygame.time.Clock()

# make the cards as big as the screen allows
GAP = 16
card_h = (HEIGHT - 160 - GAP * (ROWS - 1)) // ROWS
card_w = min((WIDTH - 100 - GAP * (COLS - 1)) // COLS, card_h * 3 // 4 + 20)
board_w = COLS * card_w + (COLS - 1) * GAP
board_x = (WIDTH - board_w) // 2
board_y = 90

font = pygame.font.Font(None, 44)
card_font = pygame.font.Font(None, card_h * 2 // 3)
big_font = pygame.font.Font(None, 90)


class Card:
    def __init__(self, letter, row, col):
        self.letter = letter
        self.rect = pygame.Rect(board_x + col * (card_w + GAP), board_y + row * (card_h + GAP), card_w, card_h)
        self.face_up = False
        self.matched = False

    def draw(self, surface, mouse):
        if self.face_up or self.matched:
            pygame.draw.rect(surface, CARD_FACE, self.rect, border_radius=10)
            text = card_font.render(self.letter, True, LETTER_COLOURS[self.letter])
            surface.blit(text, text.get_rect(center=self.rect.center))
        else:
            colour = CARD_BACK_HOVER if self.rect.collidepoint(mouse) else CARD_BACK
            pygame.draw.rect(surface, colour, self.rect, border_radius=10)
            pygame.draw.rect(surface, WHITE, self.rect.inflate(-16, -16), 2, border_radius=6)


def new_game():
    global cards, flipped, moves, pairs, won
    letters = list(LETTERS * 2)
    random.shuffle(letters)
    cards = []
    for i, letter in enumerate(letters):
        cards.append(Card(letter, i // COLS, i % COLS))
    flipped = []
    moves = 0
    pairs = 0
    won = False


def draw():
    mouse = pygame.mouse.get_pos()
    screen.fill(BG)
    header = font.render("Moves: %d      Pairs: %d / 8" % (moves, pairs), True, WHITE)
    screen.blit(header, header.get_rect(center=(WIDTH // 2, 45)))
    for card in cards:
        card.draw(screen, mouse)
    footer = font.render("R = new game    ESC = quit", True, (180, 220, 190))
    screen.blit(footer, footer.get_rect(center=(WIDTH // 2, HEIGHT - 35)))
    if won:
        banner = pygame.Rect(0, 0, min(WIDTH - 40, 900), 160)
        banner.center = (WIDTH // 2, HEIGHT // 2)
        pygame.draw.rect(screen, (0, 0, 0), banner, border_radius=16)
        text = big_font.render("You won in %d moves!" % moves, True, YELLOW)
        screen.blit(text, text.get_rect(center=(banner.centerx, banner.centery - 25)))
        text = font.render("Press R to play again", True, WHITE)
        screen.blit(text, text.get_rect(center=(banner.centerx, banner.centery + 45)))


def click(pos):
    global moves, pairs, won, flipped
    for card in cards:
        if card.rect.collidepoint(pos) and not card.face_up and not card.matched:
            card.face_up = True
            flipped.append(card)
            break
    if len(flipped) == 2:
        moves += 1
        a, b = flipped
        if a.letter == b.letter:
            a.matched = True
            b.matched = True
            pairs += 1
            if pairs == 8:
                won = True
        else:
            # show both cards for a moment, then turn them back
            draw()
            pygame.display.flip()
            pygame.time.wait(800)
            a.face_up = False
            b.face_up = False
        flipped = []


new_game()
while True:
    for event in pygame.event.get():
        if event.type == pygame.QUIT:
            pygame.quit()
            sys.exit()
        if event.type == pygame.KEYDOWN:
            if event.key == pygame.K_ESCAPE:
                pygame.quit()
                sys.exit()
            if event.key == pygame.K_r:
                new_game()
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1 and not won:
            click(event.pos)

    draw()
    pygame.display.flip()
    clock.tick(30)
