"""Test target: a ball that moves continuously; space reverses it; 'f' freezes the loop."""
import os
import pygame

pygame.init()
screen = pygame.display.set_mode((320, 240))
pygame.display.set_caption("Anim")
clock = pygame.time.Clock()
x, dx = 20, 4
freeze_after = os.environ.get("ANIM_FREEZE_AFTER_SPACES")
spaces = 0
while True:
    for event in pygame.event.get():
        if event.type == pygame.QUIT:
            raise SystemExit
        if event.type == pygame.KEYDOWN and event.key == pygame.K_SPACE:
            dx, spaces = -dx, spaces + 1
            print("space", spaces, flush=True)
            if freeze_after and spaces >= int(freeze_after):
                while True:
                    pass
    x += dx
    if x < 20 or x > 300:
        dx = -dx
    screen.fill((10, 30, 60))
    pygame.draw.circle(screen, (250, 200, 40), (x, 120), 18)
    pygame.display.flip()
    clock.tick(30)
