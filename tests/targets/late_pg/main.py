"""Test target: a game that draws its board late.  For its first 1.5 s the window shows a dark "loading..."
screen; then the whole window is repainted with a board whose one tile doubles at each press of space.

Its bug variants (bugs/) are the tests' own: the benchmark's bugs are never pinned in CI.
"""
import pygame

LOAD_S = 1.5
pygame.init()
screen = pygame.display.set_mode((320, 240))
pygame.display.set_caption("Late")
font = pygame.font.Font(None, 72)
small = pygame.font.Font(None, 24)
clock = pygame.time.Clock()
start = pygame.time.get_ticks()
value = 2


def grow(v):
    return v * 2


while True:
    loaded = pygame.time.get_ticks() - start >= LOAD_S * 1000
    for event in pygame.event.get():
        if event.type == pygame.QUIT:
            raise SystemExit
        if loaded and event.type == pygame.KEYDOWN and event.key == pygame.K_SPACE:
            value = grow(value) if value < 4096 else 2
            print("value", value, flush=True)
    if not loaded:
        screen.fill((30, 30, 30))
        screen.blit(small.render("loading...", True, (200, 200, 200)), (20, 200))
    else:
        screen.fill((187, 173, 160))
        pygame.draw.rect(screen, (237, 194, 46), (100, 60, 120, 120), border_radius=8)
        text = font.render(str(value), True, (249, 246, 242))
        screen.blit(text, text.get_rect(center=(160, 120)))
    pygame.display.flip()
    clock.tick(30)
