"""A ball that falls unless space lifts it; the floor ends the game (GAME OVER, then exit 0). No time limit."""
import sys
import pygame

pygame.init()
screen = pygame.display.set_mode((200, 200))
pygame.display.set_caption("Survive")
clock = pygame.time.Clock()
y, vy, frame = 30.0, 0.0, 0
while True:
    for event in pygame.event.get():
        if event.type == pygame.QUIT:
            sys.exit(0)
        if event.type == pygame.KEYDOWN and event.key == pygame.K_SPACE:
            vy = -5.0
    vy += 0.5
    y = max(10.0, y + vy)
    frame += 1
    screen.fill((230, 230, 250))
    pygame.draw.rect(screen, (40, 40, 200), (frame % 180, 190, 20, 10))  # the ground scrolls: the game moves
    pygame.draw.circle(screen, (200, 40, 40), (100, int(y)), 10)
    pygame.display.flip()
    if y > 185:
        print("game over at frame", frame, flush=True)
        pygame.time.wait(2000)
        sys.exit(0)
    clock.tick(30)
