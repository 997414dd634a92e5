"""A tiny pygame game a player loses at once: the block starts beside the right wall, moving right; the arrows
steer it (its input is alive), but it hits the wall in a third of a second, before anyone can steer.  GAME OVER
is drawn over the last frame and shown for 3 s; then the game exits 0 (every episode ends on the same picture)."""
import sys
import pygame

pygame.init()
screen = pygame.display.set_mode((240, 240))
pygame.display.set_caption("Short life")
font = pygame.font.Font(None, 40)
clock = pygame.time.Clock()
x, y, dx, dy = 180, 112, 6, 0
steer = {pygame.K_UP: (0, -6), pygame.K_DOWN: (0, 6), pygame.K_LEFT: (-6, 0), pygame.K_RIGHT: (6, 0)}
while True:
    for event in pygame.event.get():
        if event.type == pygame.QUIT:
            sys.exit(0)
        if event.type == pygame.KEYDOWN and event.key in steer:
            dx, dy = steer[event.key]
    x, y = x + dx, y + dy
    screen.fill((20, 20, 30))
    pygame.draw.rect(screen, (60, 200, 80), (x, y, 16, 16))
    pygame.display.flip()
    if not (0 <= x <= 224 and 0 <= y <= 224):
        screen.blit(font.render("GAME OVER", True, (230, 40, 40)), (40, 100))
        pygame.display.flip()
        pygame.time.wait(3000)  # the ordinary way: sleep on the end screen, then quit
        pygame.quit()
        sys.exit(0)
    clock.tick(30)
