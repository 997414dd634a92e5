"""A tiny pygame game: keep the ball up for 4 s with space; the floor or the clock shows GAME OVER for 3 s, then exits 0."""
import sys
import pygame

pygame.init()
screen = pygame.display.set_mode((300, 300))
pygame.display.set_caption("Ball")
font = pygame.font.Font(None, 40)
clock = pygame.time.Clock()
y, vy = 40.0, 0.0
start = pygame.time.get_ticks()
while True:
    for event in pygame.event.get():
        if event.type == pygame.QUIT:
            sys.exit(0)
        if event.type == pygame.KEYDOWN and event.key == pygame.K_SPACE:
            vy = -4.0
    vy += 0.25
    y = max(12.0, y + vy)  # the ceiling stops the ball
    screen.fill((240, 240, 255))
    pygame.draw.circle(screen, (200, 40, 40), (150, int(y)), 12)
    pygame.display.flip()
    if y > 288 or pygame.time.get_ticks() - start > 4000:
        screen.blit(font.render("GAME OVER", True, (0, 0, 0)), (70, 130))
        pygame.display.flip()
        pygame.time.wait(3000)   # the ordinary way: sleep on the end screen, then quit
        pygame.quit()
        sys.exit(0)
    clock.tick(30)
