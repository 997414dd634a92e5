# SPDX-License-Identifier: GPL-3.0-or-later
# Brickout - a breakout clone with pygame.
#
# Menu: click Play (or Quit). In the game move the paddle with the LEFT and
# RIGHT arrow keys and press SPACE to launch the ball. You have 3 balls.
# A new high score asks for your name; the table is kept in highscores.json.

import os
import random
import sys

import pygame

from highscores import add_score, is_high_score, load_scores, save_scores

WIDTH = 640
HEIGHT = 480
FPS = 60

BRICK_COLS = 10
BRICK_ROWS = 6
BRICK_W = 60
BRICK_H = 20
BRICK_GAP = 4
BRICK_TOP = 60

PADDLE_W = 100
PADDLE_H = 12
PADDLE_Y = 440
PADDLE_SPEED = 7
BALL_SIZE = 12

BG = (20, 20, 40)
WHITE = (255, 255, 255)
GREY = (160, 160, 170)
PADDLE_COLOUR = (200, 200, 220)
BALL_COLOUR = (255, 255, 255)
BUTTON = (70, 90, 160)
BUTTON_HOVER = (110, 140, 230)
ROW_COLOURS = [(220, 50, 50), (240, 140, 40), (240, 220, 60), (60, 200, 80), (60, 140, 240), (160, 80, 220)]

if os.environ.get("PLAYCODER_SEED"):
    random.seed(int(os.environ["PLAYCODER_SEED"]))

pygame.init()
screen = pygame.display.set_mode((WIDTH, HEIGHT))
pygame.display.set_caption("Brickout")
clock = pygame.time.Clock()
title_font = pygame.font.Font(None, 80)
font = pygame.font.Font(None, 40)
small_font = pygame.font.Font(None, 28)


class Button:
    def __init__(self, text, center):
        self.text = text
        self.rect = pygame.Rect(0, 0, 200, 50)
        self.rect.center = center

    def draw(self, surface):
        if self.rect.collidepoint(pygame.mouse.get_pos()):
            colour = BUTTON_HOVER
        else:
            colour = BUTTON
        pygame.draw.rect(surface, colour, self.rect, border_radius=8)
        pygame.draw.rect(surface, WHITE, self.rect, 2, border_radius=8)
        label = font.render(self.text, True, WHITE)
        surface.blit(label, label.get_rect(center=self.rect.center))

    def clicked(self, event):
        return event.type == pygame.MOUSEBUTTONDOWN and event.button == 1 and self.rect.collidepoint(event.pos)


def draw_text(text, f, colour, center):
    label = f.render(text, True, colour)
    screen.blit(label, label.get_rect(center=center))


def make_brick_image(colour):
    # a little shine on every brick: lighter at the top, darker at the bottom
    image = pygame.Surface((BRICK_W, BRICK_H))
    for y in range(BRICK_H):
        for x in range(BRICK_W):
            light = 1.35 - 0.7 * y / BRICK_H
            if x < 2 or y < 2:
                light += 0.3
            r = min(255, int(colour[0] * light))
            g = min(255, int(colour[1] * light))
            b = min(255, int(colour[2] * light))
            image.set_at((x, y), (r, g, b))
    return image


def build_level():
    bricks = []
    left = (WIDTH - BRICK_COLS * (BRICK_W + BRICK_GAP) + BRICK_GAP) // 2
    for row in range(BRICK_ROWS):
        for col in range(BRICK_COLS):
            rect = pygame.Rect(left + col * (BRICK_W + BRICK_GAP), BRICK_TOP + row * (BRICK_H + BRICK_GAP),
                               BRICK_W, BRICK_H)
            bricks.append({"rect": rect, "image": make_brick_image(ROW_COLOURS[row])})
    return bricks


def reset_ball():
    global ball_x, ball_y, ball_dx, ball_dy, ball_moving
    ball_x = paddle.centerx - BALL_SIZE // 2
    ball_y = PADDLE_Y - BALL_SIZE
    ball_dx = 0
    ball_dy = 0
    ball_moving = False


def new_game():
    global bricks, score, lives, level
    bricks = build_level()
    score = 0
    lives = 3
    level = 1
    paddle.centerx = WIDTH // 2
    reset_ball()


def draw_menu():
    screen.fill(BG)
    draw_text("BRICKOUT", title_font, WHITE, (WIDTH // 2, 90))
    play_button.draw(screen)
    quit_button.draw(screen)
    draw_text("High scores", small_font, GREY, (WIDTH // 2, 330))
    if not scores:
        draw_text("none yet", small_font, GREY, (WIDTH // 2, 360))
    for i, entry in enumerate(scores[:3]):
        draw_text("%d. %s  %d" % (i + 1, entry["name"], entry["score"]), small_font, WHITE, (WIDTH // 2, 360 + 26 * i))


def draw_game():
    screen.fill(BG)
    for brick in bricks:
        screen.blit(brick["image"], brick["rect"])
    pygame.draw.rect(screen, PADDLE_COLOUR, paddle, border_radius=4)
    pygame.draw.ellipse(screen, BALL_COLOUR, (int(ball_x), int(ball_y), BALL_SIZE, BALL_SIZE))
    screen.blit(small_font.render("Score: %d" % score, True, WHITE), (10, 10))
    screen.blit(small_font.render("Balls: %d" % lives, True, WHITE), (WIDTH - 100, 10))
    if not ball_moving:
        draw_text("Press SPACE to launch", small_font, GREY, (WIDTH // 2, 300))


def draw_game_over():
    screen.fill(BG)
    draw_text("GAME OVER", title_font, WHITE, (WIDTH // 2, 160))
    draw_text("Score: %d" % score, font, WHITE, (WIDTH // 2, 240))
    draw_text("Click or press ENTER to continue", small_font, GREY, (WIDTH // 2, 320))


def draw_name_entry():
    screen.fill(BG)
    draw_text("NEW HIGH SCORE: %d" % score, font, (255, 220, 80), (WIDTH // 2, 140))
    draw_text("Type your name and press ENTER", small_font, GREY, (WIDTH // 2, 200))
    box = pygame.Rect(WIDTH // 2 - 150, 240, 300, 50)
    pygame.draw.rect(screen, WHITE, box, 2)
    label = font.render(name, True, WHITE)
    screen.blit(label, (box.x + 10, box.y + 12))
    if pygame.time.get_ticks() // 500 % 2 == 0:  # blinking cursor
        x = box.x + 12 + label.get_width()
        pygame.draw.line(screen, WHITE, (x, box.y + 10), (x, box.y + 40), 2)


def end_of_game():
    global state, name
    if is_high_score(score, scores):
        name = ""
        state = "name"
    else:
        state = "gameover"


scores = load_scores()
play_button = Button("Play", (WIDTH // 2, 200))
quit_button = Button("Quit", (WIDTH // 2, 265))
paddle = pygame.Rect(WIDTH // 2 - PADDLE_W // 2, PADDLE_Y, PADDLE_W, PADDLE_H)
bricks = []
score = 0
lives = 3
level = 1
name = ""
reset_ball()
state = "menu"

while True:
    for event in pygame.event.get():
        if event.type == pygame.QUIT:
            pygame.quit()
            sys.exit()
        if state == "menu":
            if play_button.clicked(event):
                new_game()
                state = "play"
            elif quit_button.clicked(event):
                pygame.quit()
                sys.exit()
        elif state == "play":
            if event.type == pygame.KEYDOWN and event.key == pygame.K_SPACE and not ball_moving:
                ball_moving = True
                ball_dx = random.choice([-4, -3, 3, 4])
                ball_dy = -5
        elif state == "gameover":
            if event.type == pygame.MOUSEBUTTONDOWN or (event.type == pygame.KEYDOWN and event.key == pygame.K_RETURN):
                state = "menu"
        elif state == "name":
            if event.type == pygame.KEYDOWN:
                if event.key == pygame.K_RETURN:
                    scores = add_score(scores, name.strip() or "Player", score)
                    save_scores(scores)
                    state = "menu"
                elif event.key == pygame.K_BACKSPACE:
                    name = name[:-1]
                elif event.unicode.isprintable() and event.unicode and len(name) < 12:
                    name += event.unicode

    if state == "menu":
        draw_menu()

    elif state == "play":
        keys = pygame.key.get_pressed()
        if keys[pygame.K_LEFT] and paddle.left > 0:
            paddle.x -= PADDLE_SPEED
        if keys[pygame.K_RIGHT] and paddle.right < WIDTH:
            paddle.x += PADDLE_SPEED

        if not ball_moving:
            ball_x = paddle.centerx - BALL_SIZE // 2
        else:
            ball_x += ball_dx
            ball_y += ball_dy
            if ball_x <= 0 or ball_x >= WIDTH - BALL_SIZE:
                ball_dx = -ball_dx
            if ball_y <= 0:
                ball_dy = -ball_dy
            ball = pygame.Rect(int(ball_x), int(ball_y), BALL_SIZE, BALL_SIZE)
            if ball.colliderect(paddle) and ball_dy > 0:
                ball_dy = -ball_dy
                ball_dx = (ball.centerx - paddle.centerx) // 10
                if ball_dx == 0:
                    ball_dx = random.choice([-1, 1])
            hit = ball.collidelist([b["rect"] for b in bricks])
            if hit != -1:
                brick = bricks.pop(hit)
                ball_dy = -ball_dy
                score += 10
            if ball_y > HEIGHT:
                lives -= 1
                if lives == 0:
                    end_of_game()
                else:
                    reset_ball()
            if not bricks:
                level += 1
                bricks = build_level()
                reset_ball()
        draw_game()

    elif state == "gameover":
        draw_game_over()

    elif state == "name":
        draw_name_entry()

    pygame.display.flip()
    clock.tick(FPS)
