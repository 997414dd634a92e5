"""A pygame title menu written the common way: buttons read mouse.get_pressed() after MOUSEBUTTONDOWN."""
import pygame

pygame.init()
screen = pygame.display.set_mode((360, 300))
pygame.display.set_caption("Menu")
font = pygame.font.Font(None, 36)
clock = pygame.time.Clock()
button = pygame.Rect(100, 120, 160, 60)
scene = "menu"
clicks = 0
running = True
while running:
    for event in pygame.event.get():
        if event.type == pygame.QUIT:
            running = False
        elif event.type == pygame.MOUSEBUTTONDOWN:
            if pygame.mouse.get_pressed()[0] and button.collidepoint(pygame.mouse.get_pos()):
                scene = "play" if scene == "menu" else "menu"
                clicks += 1
    hover = button.collidepoint(pygame.mouse.get_pos())
    screen.fill((30, 30, 60) if scene == "menu" else (20, 90, 40))
    pygame.draw.rect(screen, (200, 200, 90) if hover else (160, 160, 160), button)
    screen.blit(font.render("START" if scene == "menu" else "BACK", True, (0, 0, 0)), (button.x + 30, button.y + 15))
    screen.blit(font.render(f"clicks {clicks}", True, (255, 255, 255)), (20, 20))
    pygame.display.flip()
    clock.tick(30)
pygame.quit()
