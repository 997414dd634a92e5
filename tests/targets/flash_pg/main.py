# SPDX-License-Identifier: GPL-3.0-or-later
"""Test target: a still board that answers space and arrows; with FLASH_EVERY_S set, one frame in that many
seconds is drawn all white (a one-frame glitch), then the board again.  With MODE_ON_SPACE set, space sets the
display mode again (as a fullscreen toggle does): SDL's new surface is shown black for a frame; MODE_ON_SPACE=fill
shows the same black frame without a mode change (a flicker of the program's own)."""
import os
import time

import pygame

pygame.init()
screen = pygame.display.set_mode((320, 240))
pygame.display.set_caption("Flash")
clock = pygame.time.Clock()
font = pygame.font.Font(None, 28)
every = float(os.environ.get("FLASH_EVERY_S", "0") or 0)
mode_on_space = os.environ.get("MODE_ON_SPACE", "")
colours = [(200, 60, 60), (60, 160, 80), (60, 90, 200), (220, 180, 40)]
presses, x = 0, 100
last_flash = time.monotonic()
while True:
    for event in pygame.event.get():
        if event.type == pygame.QUIT:
            raise SystemExit
        if event.type == pygame.KEYDOWN:
            presses += 1
            if mode_on_space and event.key == pygame.K_SPACE:
                if mode_on_space == "fill":
                    screen.fill((0, 0, 0))
                else:
                    screen = pygame.display.set_mode((320, 240))
                pygame.display.flip()
                clock.tick(30)
            if event.key == pygame.K_LEFT:
                x = max(20, x - 20)
            elif event.key == pygame.K_RIGHT:
                x = min(220, x + 20)
    screen.fill((30, 34, 48))
    pygame.draw.rect(screen, colours[presses % len(colours)], (x, 80, 80, 80))
    screen.blit(font.render(f"presses {presses}", True, (240, 240, 240)), (10, 10))
    if every and time.monotonic() - last_flash >= every:
        last_flash = time.monotonic()
        screen.fill((255, 255, 255))
        print("flash", flush=True)
    pygame.display.flip()
    clock.tick(30)
