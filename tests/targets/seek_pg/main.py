"""A dot that moves one cell every 3 frames on a 20x20 board that wraps around (it never dies), turned by the
arrow keys.  Food lies off the dot's row; eating it prints "ate" and puts the next food elsewhere.  Nothing
in lines run or pictures tells a turn toward the food from a turn away: only how near the head came."""
import sys

import pygame

pygame.init()
screen = pygame.display.set_mode((200, 200))
pygame.display.set_caption("Seek")
clock = pygame.time.Clock()
turns = {pygame.K_LEFT: (-1, 0), pygame.K_RIGHT: (1, 0), pygame.K_UP: (0, -1), pygame.K_DOWN: (0, 1)}
places = [(12, 15), (3, 8), (17, 4)]
head, aim, food, eaten, frame = (1, 1), (1, 0), places[0], 0, 0
while True:
    for event in pygame.event.get():
        if event.type == pygame.QUIT:
            sys.exit(0)
        if event.type == pygame.KEYDOWN and event.key in turns:
            aim = turns[event.key]
    frame += 1
    if frame % 3 == 0:
        head = ((head[0] + aim[0]) % 20, (head[1] + aim[1]) % 20)
        if head == food:
            eaten += 1
            print("ate", eaten, flush=True)
            food = places[eaten % len(places)]
    screen.fill((20, 20, 20))
    pygame.draw.rect(screen, (200, 40, 40), (food[0] * 10, food[1] * 10, 10, 10))
    pygame.draw.rect(screen, (40, 200, 40), (head[0] * 10, head[1] * 10, 10, 10))
    pygame.display.flip()
    clock.tick(30)
