# SPDX-License-Identifier: GPL-3.0-or-later
# Hopper - a little flappy bird clone made with pygame.
#
# Click PLAY on the title screen, then press SPACE (or click) to hop.
# Fly through the gaps. When you crash the game shows your score for
# two seconds and goes back to the title screen.

import os
import random
import sys

import pygame

WIDTH = 400
HEIGHT = 600
FPS = 60
GROUND_Y = 540

GRAVITY = 0.45
HOP_SPEED = -7.5
PIPE_SPEED = 3
PIPE_WIDTH = 64
PIPE_GAP = 170
PIPE_EVERY = 95  # frames between two pipes

BIRD_X = 100
BIRD_SIZE = 30

SKY = (135, 206, 235)
GROUND = (222, 184, 135)
GRASS = (34, 139, 34)
PIPE_GREEN = (50, 180, 70)
PIPE_DARK = (30, 110, 40)
YELLOW = (255, 220, 0)
WHITE = (255, 255, 255)
BLACK = (0, 0, 0)
BUTTON = (240, 140, 40)
BUTTON_HOVER = (255, 180, 80)

if os.environ.get("PLAYCODER_SEED"):
    random.seed(int(os.environ["PLAYCODER_SEED"]))

pygame.init()
screen = pygame.display.set_mode((WIDTH, HEIGHT))
pygame.display.set_caption("Hopper")
clock = pygame.time.Clock()

big_font = pygame.font.Font(None, 72)
font = pygame.font.Font(None, 48)
small_font = pygame.font.Font(None, 30)

play_button = pygame.Rect(0, 0, 160, 60)
play_button.center = (WIDTH // 2, 330)

best = 0


def new_pipe():
    gap_top = random.randint(80, GROUND_Y - PIPE_GAP - 60)
    return {"x": WIDTH, "gap_top": gap_top, "passed": False}


def reset():
    global bird_y, bird_speed, pipes, score, frames, started
    bird_y = 280
    bird_speed = 0
    pipes = []
    score = 0
    frames = 0
    started = False


def draw_text(text, f, colour, center):
    img = f.render(text, True, colour)
    rect = img.get_rect(center=center)
    screen.blit(img, rect)


def draw_ground():
    pygame.draw.rect(screen, GROUND, (0, GROUND_Y, WIDTH, HEIGHT - GROUND_Y))
    pygame.draw.rect(screen, GRASS, (0, GROUND_Y, WIDTH, 10))


def draw_bird(y):
    pygame.draw.ellipse(screen, YELLOW, (BIRD_X, int(y), BIRD_SIZE, BIRD_SIZE - 6))
    pygame.draw.circle(screen, BLACK, (BIRD_X + 21, int(y) + 8), 3)
    pygame.draw.polygon(screen, (255, 120, 0), [(BIRD_X + 28, int(y) + 10), (BIRD_X + 38, int(y) + 14),
                                                 (BIRD_X + 28, int(y) + 17)])


def draw_pipes():
    for p in pipes:
        top = pygame.Rect(p["x"], 0, PIPE_WIDTH, p["gap_top"])
        bottom = pygame.Rect(p["x"], p["gap_top"] + PIPE_GAP, PIPE_WIDTH, GROUND_Y - p["gap_top"] - PIPE_GAP)
        pygame.draw.rect(screen, PIPE_GREEN, top)
        pygame.draw.rect(screen, PIPE_GREEN, bottom)
        pygame.draw.rect(screen, PIPE_DARK, top, 3)
        pygame.draw.rect(screen, PIPE_DARK, bottom, 3)


def draw_title():
    screen.fill(SKY)
    draw_ground()
    draw_text("HOPPER", big_font, WHITE, (WIDTH // 2, 150))
    draw_bird(220)
    mouse = pygame.mouse.get_pos()
    if play_button.collidepoint(mouse):
        pygame.draw.rect(screen, BUTTON_HOVER, play_button, border_radius=10)
    else:
        pygame.draw.rect(screen, BUTTON, play_button, border_radius=10)
    draw_text("PLAY", font, WHITE, play_button.center)
    draw_text("Best: " + str(best), small_font, WHITE, (WIDTH // 2, 420))


def bird_hits_something():
    bird = pygame.Rect(BIRD_X, int(bird_y), BIRD_SIZE, BIRD_SIZE - 6)
    if bird.bottom >= GROUND_Y:
        return True
    for p in pipes:
        top = pygame.Rect(p["x"], 0, PIPE_WIDTH, p["gap_top"])
        bottom = pygame.Rect(p["x"], p["gap_top"] + PIPE_GAP, PIPE_WIDTH, GROUND_Y)
        if bird.colliderect(top) or bird.colliderect(bottom):
            return True
    return False


def game_over():
    global best
    if score > best:
        best = score
    draw_text("GAME OVER", big_font, WHITE, (WIDTH // 2, 220))
    draw_text("Score: " + str(score), font, WHITE, (WIDTH // 2, 290))
    pygame.display.flip()
    pygame.time.wait(2000)


reset()
state = "title"
running = True
while running:
    for event in pygame.event.get():
        if event.type == pygame.QUIT:
            running = False
        if state == "playing":
            if event.type == pygame.KEYDOWN and event.key == pygame.K_SPACE:
                started = True
                bird_speed = HOP_SPEED
            if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
                started = True
                bird_speed = HOP_SPEED

    if state == "title":
        draw_title()
        # start when the PLAY button is pressed
        if pygame.mouse.get_pressed()[0] and play_button.collidepoint(pygame.mouse.get_pos()):
            reset()
            state = "playing"

    elif state == "playing":
        if started:
            bird_speed += GRAVITY
            bird_y += bird_speed
            if bird_y < 0:
                bird_y = 0
                bird_speed = 0

            frames += 1
            if frames % PIPE_EVERY == 1:
                pipes.append(new_pipe())
            for p in pipes:
                p["x"] -= PIPE_SPEED
                if not p["passed"] and p["x"] + PIPE_WIDTH < BIRD_X:
                    p["passed"] = True
                    score += 1
            pipes = [p for p in pipes if p["x"] > -PIPE_WIDTH]

        screen.fill(SKY)
        draw_pipes()
        draw_ground()
        draw_bird(bird_y)
        draw_text(str(score), big_font, WHITE, (WIDTH // 2, 50))
        if not started:
            draw_text("Press SPACE to hop", small_font, WHITE, (WIDTH // 2, 400))

        if bird_hits_something():
            game_over()
            reset()
            state = "title"

    pygame.display.flip()
    clock.tick(FPS)

pygame.quit()
sys.exit()
