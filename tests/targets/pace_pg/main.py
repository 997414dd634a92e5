"""Test target for the paced check: a square that moves 4 pixels a frame at 30 frames a second."""
import pygame

FPS = 30

pygame.init()
screen = pygame.display.set_mode((320, 240))
pygame.display.set_caption("Pace")
clock = pygame.time.Clock()
x = 0
while True:
    for event in pygame.event.get():
        if event.type == pygame.QUIT:
            raise SystemExit
    x = (x + 4) % 300
    screen.fill((20, 24, 40))
    pygame.draw.rect(screen, (240, 190, 40), (x, 100, 20, 20))
    pygame.display.flip()
    clock.tick(FPS)
