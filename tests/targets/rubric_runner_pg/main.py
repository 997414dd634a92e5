"""A real-time game whose first key must come within 0.2 s: the square crashes into the wall after 6 frames
at 30 fps unless space stops it.  Scripted without the frame gate, the case fails on the program as it is."""
import pygame

pygame.init()
screen = pygame.display.set_mode((240, 80))
clock = pygame.time.Clock()
x, state = 0, "running"
while True:
    for event in pygame.event.get():
        if event.type == pygame.QUIT:
            raise SystemExit
        if event.type == pygame.KEYDOWN and event.key == pygame.K_SPACE and state == "running":
            state = "stopped"
    if state == "running":
        x += 40
        if x >= 220:
            state = "crashed"
    screen.fill({"running": (40, 40, 40), "stopped": (0, 200, 0), "crashed": (200, 0, 0)}[state])
    pygame.draw.rect(screen, (255, 255, 255), (x, 30, 20, 20))
    pygame.display.flip()
    clock.tick(30)
