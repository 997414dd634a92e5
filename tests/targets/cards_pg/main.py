"""Test target: a 4x4 memory game in pygame, cards drawn (no widgets to read).  Two turned cards that
match stay up; two that do not turn back at the next click.  All eight pairs found: a win panel.

The explorer's own test (tests/test_explore_pairs.py) plays it: only a player who remembers what each
card showed wins it within a few dozen clicks.
"""
import random

import pygame

pygame.init()
screen = pygame.display.set_mode((400, 460))
pygame.display.set_caption("Cards")
font = pygame.font.Font(None, 32)
clock = pygame.time.Clock()
COLOURS = [(220, 60, 50), (40, 120, 200), (40, 170, 90), (230, 150, 30)]
faces = [i // 2 for i in range(16)]
random.Random(7).shuffle(faces)
up, found, first, second = set(), set(), None, None


def rect(i):
    return pygame.Rect(24 + (i % 4) * 94, 60 + (i // 4) * 98, 56, 70)


def draw_face(i, r):
    c = COLOURS[faces[i] % 4]
    kind = faces[i] // 4
    if kind == 0 and faces[i] % 2 == 0:
        pygame.draw.circle(screen, c, r.center, 20)
    elif kind == 0:
        pygame.draw.rect(screen, c, r.inflate(-30, -40))
    elif faces[i] % 2 == 0:
        pygame.draw.polygon(screen, c, [(r.centerx, r.centery - 20), (r.centerx + 20, r.centery + 16),
                                        (r.centerx - 20, r.centery + 16)])
    else:
        pygame.draw.rect(screen, c, (r.x + 12, r.centery - 5, r.width - 24, 10))


print("cards started", flush=True)
running = True
while running:
    for event in pygame.event.get():
        if event.type == pygame.QUIT:
            running = False
        elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            hit = next((i for i in range(16) if rect(i).collidepoint(event.pos)), None)
            if hit is None or hit in found or hit in up:
                continue
            if second is not None:  # a mismatch turns back at the next click
                up -= {first, second}
                first = second = None
            up.add(hit)
            if first is None:
                first = hit
            elif faces[first] == faces[hit]:
                found |= {first, hit}
                print(f"pair {faces[hit]} found", flush=True)
                first = None
                if len(found) == 16:
                    print("won", flush=True)
            else:
                second = hit
    screen.fill((40, 50, 70))
    screen.blit(font.render(f"pairs {len(found) // 2}", True, (240, 240, 240)), (20, 18))
    for i in range(16):
        r = rect(i)
        if i in up or i in found:
            pygame.draw.rect(screen, (250, 250, 245), r)
            draw_face(i, r)
        else:
            pygame.draw.rect(screen, (70, 140, 210), r)
    if len(found) == 16:
        pygame.draw.rect(screen, (250, 250, 245), (60, 100, 220, 60))
        screen.blit(font.render("YOU WIN", True, (40, 50, 70)), (120, 118))
    pygame.display.flip()
    clock.tick(30)
pygame.quit()
