# SPDX-License-Identifier: GPL-3.0-or-later
"""Flappy sample target for PlayCoder Workbench (pygame).

Space flaps (and starts the game), 'r' restarts.  The scene is always in
motion: the bird bobs and the ground scrolls before the first flap, pipes
scroll while playing, and a blinking hint is shown after a crash.
"""

import math
import os
import sys

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402

from flappy_logic import (  # noqa: E402
    BIRD_R, BIRD_X, GROUND_Y, HEIGHT, PIPE_W, WIDTH, World,
)

SKY = (112, 197, 206)
CLOUD = (236, 248, 250)
PIPE = (94, 176, 56)
PIPE_EDGE = (46, 104, 30)
GROUND = (222, 206, 146)
GROUND_STRIPE = (196, 170, 96)
GRASS = (120, 200, 70)
BIRD = (250, 214, 50)
BIRD_EDGE = (120, 80, 20)
BEAK = (240, 120, 40)
TEXT = (255, 255, 255)
SHADOW = (40, 40, 40)
WING_COLOURS = [
    (255, 245, 200), (250, 170, 60), (240, 110, 90), (170, 120, 230), (90, 190, 240),
]


def wing_colour(presses):
    """The wing changes colour with every press of space."""
    return WING_COLOURS[presses % len(WING_COLOURS)]


def text(screen, font, message, center, colour=TEXT):
    shadow = font.render(message, True, SHADOW)
    label = font.render(message, True, colour)
    screen.blit(shadow, shadow.get_rect(center=(center[0] + 2, center[1] + 2)))
    screen.blit(label, label.get_rect(center=center))


def draw_background(screen, world):
    screen.fill(SKY)
    for i, (base_x, y, w) in enumerate([(60, 90, 90), (260, 150, 120), (420, 60, 70)]):
        x = (base_x - world.ticks * (0.5 + 0.25 * i)) % (WIDTH + 160) - 120
        pygame.draw.ellipse(screen, CLOUD, (x, y, w, w // 3))


def draw_pipes(screen, world):
    for pipe in world.pipes:
        x = int(pipe.x)
        top = pygame.Rect(x, 0, PIPE_W, pipe.gap_top)
        bottom = pygame.Rect(x, pipe.gap_bottom, PIPE_W, GROUND_Y - pipe.gap_bottom)
        for rect, lip_y in ((top, pipe.gap_top - 20), (bottom, pipe.gap_bottom)):
            pygame.draw.rect(screen, PIPE, rect)
            pygame.draw.rect(screen, PIPE_EDGE, rect, 3)
            lip = pygame.Rect(x - 5, lip_y, PIPE_W + 10, 20)
            pygame.draw.rect(screen, PIPE, lip)
            pygame.draw.rect(screen, PIPE_EDGE, lip, 3)


def draw_ground(screen, world):
    pygame.draw.rect(screen, GROUND, (0, GROUND_Y, WIDTH, HEIGHT - GROUND_Y))
    pygame.draw.rect(screen, GRASS, (0, GROUND_Y, WIDTH, 12))
    offset = int(world.scroll)
    for x in range(-offset, WIDTH + 40, 40):
        pygame.draw.polygon(screen, GROUND_STRIPE,
                            [(x, GROUND_Y + 12), (x + 20, GROUND_Y + 12),
                             (x + 6, GROUND_Y + 40), (x - 14, GROUND_Y + 40)])


def draw_bird(screen, world, wing):
    x, y = BIRD_X, int(world.bird_y)
    pygame.draw.circle(screen, BIRD, (x, y), BIRD_R)
    pygame.draw.circle(screen, BIRD_EDGE, (x, y), BIRD_R, 2)
    flap_up = world.state == "playing" and world.bird_vy < 0
    wing_y = y - 6 if flap_up else y + 2
    pygame.draw.ellipse(screen, wing, (x - 14, wing_y, 14, 9))
    pygame.draw.ellipse(screen, BIRD_EDGE, (x - 14, wing_y, 14, 9), 1)
    pygame.draw.circle(screen, (255, 255, 255), (x + 6, y - 5), 5)
    pygame.draw.circle(screen, (0, 0, 0), (x + 7, y - 5), 2)
    pygame.draw.polygon(screen, BEAK, [(x + 11, y - 1), (x + 22, y + 3), (x + 11, y + 7)])


def draw(screen, fonts, world, wing):
    draw_background(screen, world)
    draw_pipes(screen, world)
    draw_ground(screen, world)
    draw_bird(screen, world, wing)
    blink_on = (world.ticks // 15) % 2 == 0
    if world.state == "ready":
        text(screen, fonts["big"], "Flappy", (WIDTH // 2, 120))
        text(screen, fonts["small"], "press SPACE to flap", (WIDTH // 2, 360))
    else:
        text(screen, fonts["big"], str(world.score), (WIDTH // 2, 60))
    if world.state == "over":
        panel = pygame.Rect(0, 0, 300, 170)
        panel.center = (WIDTH // 2, 260)
        pygame.draw.rect(screen, (250, 240, 210), panel, border_radius=12)
        pygame.draw.rect(screen, BIRD_EDGE, panel, 4, border_radius=12)
        text(screen, fonts["mid"], "GAME OVER", (WIDTH // 2, 215), (230, 90, 60))
        text(screen, fonts["small"], "score: %d" % world.score, (WIDTH // 2, 260))
        if blink_on:
            text(screen, fonts["small"], "press R to restart", (WIDTH // 2, 305))
    # a small heartbeat in the corner keeps every state visibly alive
    pulse = 4 + int(3 * (1 + math.sin(world.ticks * 0.3)))
    pygame.draw.circle(screen, (255, 255, 255), (WIDTH - 16, HEIGHT - 16), pulse)


def main():
    seed = int(os.environ.get("PLAYCODER_SEED", "0"))
    print("flappy started seed=%d" % seed, flush=True)

    pygame.init()
    screen = pygame.display.set_mode((WIDTH, HEIGHT))
    pygame.display.set_caption("Flappy")
    fonts = {
        "big": pygame.font.Font(None, 72),
        "mid": pygame.font.Font(None, 52),
        "small": pygame.font.Font(None, 32),
    }
    clock = pygame.time.Clock()
    world = World(seed)
    presses = 0
    wing = wing_colour(presses)

    running = True
    while running:
        for event in pygame.event.get():
            if event.type == pygame.QUIT:
                running = False
            elif event.type == pygame.KEYDOWN:
                if event.key == pygame.K_SPACE:
                    presses += 1
                    wing = wing_colour(presses)
                    world.flap()
                elif event.key == pygame.K_r:
                    world.reset()
        world.step()
        draw(screen, fonts, world, wing)
        pygame.display.flip()
        clock.tick(30)

    pygame.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
