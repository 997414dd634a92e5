"""A game loop at 30 frames per second that prints its frame counter: its own game clock."""
import pygame

pygame.init()
screen = pygame.display.set_mode((200, 150))
pygame.display.set_caption("Counter")
font = pygame.font.Font(None, 32)
clock = pygame.time.Clock()
frame = 0
while True:
    for event in pygame.event.get():
        if event.type == pygame.QUIT:
            raise SystemExit
    frame += 1
    print(f"frame {frame}", flush=True)
    screen.fill((10, 10, 40))
    screen.blit(font.render(str(frame), True, (250, 250, 250)), (60, 60))
    pygame.display.flip()
    clock.tick(30)
