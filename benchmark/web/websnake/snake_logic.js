// The rules of the game, with no drawing: a 20 x 20 board, a snake that waits for its first arrow key.
"use strict";

const COLS = 20;
const ROWS = 20;
const FOOD_POINTS = 10;
const START_LENGTH = 3;
const DIRECTIONS = { up: [0, -1], down: [0, 1], left: [-1, 0], right: [1, 0] };

class SnakeGame {
  constructor(random) {
    this.random = random;
    this.reset();
  }

  reset() {
    const row = Math.floor(ROWS / 2);
    this.snake = [];
    for (let i = 0; i < START_LENGTH; i++) {
      this.snake.push([5 - i, row]);
    }
    this.heading = null;
    this.pending = null;
    this.score = 0;
    this.eaten = 0;
    this.state = "waiting";
    this.food = this.firstFood();
  }

  firstFood() {
    // The first food of every game lies ahead on the start row, so going straight eats it.
    const row = this.snake[0][1];
    const col = 10 + Math.floor(this.random() * (COLS - 11));
    return [col, row];
  }

  placeFood() {
    const free = [];
    for (let y = 0; y < ROWS; y++) {
      for (let x = 0; x < COLS; x++) {
        if (!this.occupies(x, y)) {
          free.push([x, y]);
        }
      }
    }
    return free.length ? free[Math.floor(this.random() * free.length)] : null;
  }

  occupies(x, y) {
    return this.snake.some(([sx, sy]) => sx === x && sy === y);
  }

  turn(name) {
    const want = DIRECTIONS[name];
    if (!want || this.state === "over") {
      return;
    }
    const current = this.pending || this.heading;
    if (current && current[0] === -want[0] && current[1] === -want[1]) {
      return; // the opposite of the way it goes: ignored
    }
    this.pending = want;
    if (this.state === "waiting") {
      this.state = "running";
    }
  }

  step() {
    if (this.state !== "running") {
      return "idle";
    }
    if (this.pending) {
      this.heading = this.pending;
      this.pending = null;
    }
    const [hx, hy] = this.snake[0];
    const head = [hx + this.heading[0], hy + this.heading[1]];
    const outside = head[0] < 0 || head[0] >= COLS || head[1] < 0 || head[1] >= ROWS;
    const eating = this.food !== null && head[0] === this.food[0] && head[1] === this.food[1];
    const body = eating ? this.snake : this.snake.slice(0, -1);
    if (outside || body.some(([x, y]) => x === head[0] && y === head[1])) {
      this.state = "over";
      return "died";
    }
    this.snake.unshift(head);
    if (!eating) {
      this.snake.pop();
      return "moved";
    }
    this.score += FOOD_POINTS;
    this.eaten += 1;
    this.food = this.placeFood();
    return "ate";
  }
}
