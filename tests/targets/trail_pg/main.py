"""A dot that leaves a trail: the display is never cleared, each frame draws on what the last one left.
Space moves the dot down a row.  A row of 300 grey pixels is drawn each frame by a loop (a drawing loop)."""
import sys
import pygame

pygame.init()
screen = pygame.display.set_mode((200, 120))
pygame.display.set_caption("Trail")
clock = pygame.time.Clock()
screen.fill((20, 20, 20))


def dots(n):
    for i in range(n):
        pygame.draw.rect(screen, (90, 90, 90), (i % 200, 112 + i // 200, 1, 1))


row, frame = 30, 0
while True:
    for event in pygame.event.get():
        if event.type == pygame.QUIT:
            sys.exit(0)
        if event.type == pygame.KEYDOWN and event.key == pygame.K_SPACE:
            row += 12
    frame += 1
    pygame.draw.circle(screen, (240, 200, 40), (frame * 3 % 200, row % 100), 4)
    dots(300)
    pygame.display.flip()
    clock.tick(30)
