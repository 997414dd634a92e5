# SPDX-License-Identifier: GPL-3.0-or-later
# Snake in pygame.
#
# ENTER starts the game, the arrow keys steer, P pauses.
# Eat the red food to grow. Hitting a wall or yourself ends the game:
# the score is shown for three seconds and then the game closes.

import os
import random
import sys
import time

import pygame

CELL = 20
COLS = 30
ROWS = 20
BAR = 40  # score bar at the top
WIDTH = COLS * CELL
HEIGHT = ROWS * CELL + BAR
SPEED = 10  # moves per second

BLACK = (0, 0, 0)
WHITE = (255, 255, 255)
GREEN = (0, 200, 0)
DARK_GREEN = (0, 120, 0)
RED = (220, 30, 30)
GREY = (40, 40, 40)
YELLOW = (255, 215, 0)

if os.environ.get("PLAYCODER_SEED"):
    random.seed(int(os.environ["PLAYCODER_SEED"]))

pygame.init()
screen = pygame.display.set_mode((WIDTH, HEIGHT))
pygame.display.set_caption("Snake")
clock = pygame.time.Clock()
font = pygame.font.SysFont("arial", 24)
big_font = pygame.font.SysFont("arial", 60)


def show_text(text, f, colour, center):
    surface = f.render(text, True, colour)
    rect = surface.get_rect(center=center)
    screen.blit(surface, rect)


def random_food(snake):
    while True:
        pos = [random.randrange(COLS), random.randrange(ROWS)]
        if pos not in snake:
            return pos


def menu():
    while True:
        for event in pygame.event.get():
            if event.type == pygame.QUIT:
                pygame.quit()
                sys.exit()
            if event.type == pygame.KEYDOWN and event.key == pygame.K_RETURN:
                return
        screen.fill(BLACK)
        show_text("SNAKE", big_font, GREEN, (WIDTH // 2, 150))
        show_text("Press ENTER to start", font, WHITE, (WIDTH // 2, 260))
        show_text("Arrow keys to move, P to pause", font, (150, 150, 150), (WIDTH // 2, 300))
        pygame.display.update()
        clock.tick(15)


def pause():
    while True:
        for event in pygame.event.get():
            if event.type == pygame.QUIT:
                pygame.quit()
                sys.exit()
            if event.type == pygame.KEYDOWN and event.key == pygame.K_p:
                return
        show_text("PAUSED", big_font, YELLOW, (WIDTH // 2, HEIGHT // 2))
        pygame.display.update()
        clock.tick(15)


def game_over(score):
    show_text("GAME OVER", big_font, RED, (WIDTH // 2, HEIGHT // 2 - 30))
    show_text("Score: " + str(score), font, WHITE, (WIDTH // 2, HEIGHT // 2 + 30))
    pygame.display.update()
    time.sleep(3)
    pygame.quit()
    sys.exit()


def draw(snake, food, score):
    screen.fill(BLACK)
    pygame.draw.rect(screen, GREY, (0, 0, WIDTH, BAR))
    show_text("Score: " + str(score), font, WHITE, (80, BAR // 2))
    pygame.draw.rect(screen, RED, (food[0] * CELL, BAR + food[1] * CELL, CELL, CELL))
    for i, part in enumerate(snake):
        colour = DARK_GREEN if i == 0 else GREEN
        pygame.draw.rect(screen, colour, (part[0] * CELL, BAR + part[1] * CELL, CELL - 1, CELL - 1))
    pygame.display.update()


def game():
    snake = [[10, 10], [9, 10], [8, 10]]
    direction = "RIGHT"
    change_to = direction
    food = random_food(snake)
    score = 0

    while True:
        for event in pygame.event.get():
            if event.type == pygame.QUIT:
                pygame.quit()
                sys.exit()
            if event.type == pygame.KEYDOWN:
                if event.key == pygame.K_UP:
                    change_to = "UP"
                if event.key == pygame.K_DOWN:
                    change_to = "DOWN"
                if event.key == pygame.K_LEFT:
                    change_to = "LEFT"
                if event.key == pygame.K_RIGHT:
                    change_to = "RIGHT"
                if event.key == pygame.K_p:
                    pause()

        # the snake can't turn back on itself
        if change_to == "UP" and direction != "DOWN":
            direction = "UP"
        if change_to == "DOWN" and direction != "UP":
            direction = "DOWN"
        if change_to == "LEFT" and direction != "RIGHT":
            direction = "LEFT"
        if change_to == "RIGHT" and direction != "LEFT":
            direction = "RIGHT"

        head = list(snake[0])
        if direction == "UP":
            head[1] -= 1
        if direction == "DOWN":
            head[1] += 1
        if direction == "LEFT":
            head[0] -= 1
        if direction == "RIGHT":
            head[0] += 1

        if head[0] < 0 or head[0] >= COLS or head[1] < 0 or head[1] >= ROWS or head in snake[:-1]:
            game_over(score)

        snake.insert(0, head)
        if head == food:
            score += 10
            food = random_food(snake)
        else:
            snake.pop()

        draw(snake, food, score)
        clock.tick(SPEED)


menu()
game()
