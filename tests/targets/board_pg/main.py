"""Test target: noughts and crosses on keys 1-9 (a taken square ignores its key), N for a new game.
Prints ``over <how>`` when a game ends (a line or a full board): how many games an explorer finishes."""
import pygame

pygame.init()
screen = pygame.display.set_mode((300, 300))
pygame.display.set_caption("Board")
font = pygame.font.Font(None, 40)
clock = pygame.time.Clock()
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
board, turn, over = [""] * 9, "X", ""
running = True
while running:
    for event in pygame.event.get():
        if event.type == pygame.QUIT:
            running = False
        elif event.type == pygame.KEYDOWN and event.key == pygame.K_n:
            board, turn, over = [""] * 9, "X", ""
        elif event.type == pygame.KEYDOWN and pygame.K_1 <= event.key <= pygame.K_9 and not over:
            i = event.key - pygame.K_1
            if board[i]:
                continue
            board[i], turn = turn, "O" if turn == "X" else "X"
            line = next((ln for ln in LINES if board[ln[0]] and board[ln[0]] == board[ln[1]] == board[ln[2]]), None)
            if line is not None or all(board):
                over = f"line {line}" if line is not None else "full"
                print(f"over {over}", flush=True)
    screen.fill((245, 245, 235))
    for i, mark in enumerate(board):
        x, y = 30 + (i % 3) * 80, 30 + (i // 3) * 80
        pygame.draw.rect(screen, (60, 60, 60), (x, y, 76, 76), 2)
        if mark:
            screen.blit(font.render(mark, True, (200, 40, 40) if mark == "X" else (40, 40, 200)), (x + 26, y + 22))
    if over:
        screen.blit(font.render("GAME OVER", True, (0, 120, 0)), (70, 270))
    pygame.display.flip()
    clock.tick(30)
pygame.quit()
