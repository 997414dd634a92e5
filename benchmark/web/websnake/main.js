// Drawing and input: one step of the game every STEP_MS of animation-frame time.
"use strict";

const CELL = 20;
const HEADER = 40;
const STEP_MS = 130;
const KEYS = { ArrowUp: "up", ArrowDown: "down", ArrowLeft: "left", ArrowRight: "right" };
const COLOURS = { board: "#1d2330", header: "#2b3345", text: "#f2f2f2", head: "#2850c8",
                  body: "#4e7cf6", food: "#e7652d", panel: "#faf5e6", panelText: "#1d2330" };

const canvas = document.getElementById("board");
const ctx = canvas.getContext("2d");
const game = new SnakeGame(seededRandom(readSeed()));
let last = null;
let owed = 0;

function drawHeader() {
  ctx.fillStyle = COLOURS.header;
  ctx.fillRect(0, 0, canvas.width, HEADER);
  ctx.fillStyle = COLOURS.text;
  ctx.font = "bold 20px sans-serif";
  ctx.textBaseline = "middle";
  ctx.textAlign = "left";
  ctx.fillText("SNAKE", 12, HEADER / 2);
  ctx.textAlign = "right";
  ctx.fillText("SCORE " + game.score, canvas.width - 12, HEADER / 2);
}

function drawCell(x, y, colour, inset) {
  ctx.fillStyle = colour;
  ctx.fillRect(x * CELL + inset, HEADER + y * CELL + inset, CELL - 2 * inset, CELL - 2 * inset);
}

function drawPanel() {
  ctx.fillStyle = COLOURS.panel;
  ctx.fillRect(60, 120, 280, 110);
  ctx.fillStyle = COLOURS.panelText;
  ctx.textAlign = "center";
  ctx.font = "bold 28px sans-serif";
  ctx.fillText("GAME OVER", 200, 152);
  ctx.font = "18px sans-serif";
  ctx.fillText("score " + game.score + ", length " + game.snake.length, 200, 185);
  ctx.fillText("press R to play again", 200, 210);
}

function draw() {
  ctx.fillStyle = COLOURS.board;
  ctx.fillRect(0, HEADER, canvas.width, canvas.height - HEADER);
  drawHeader();
  if (game.food) {
    drawCell(game.food[0], game.food[1], COLOURS.food, 3);
  }
  game.snake.forEach(([x, y], i) => drawCell(x, y, i === 0 ? COLOURS.head : COLOURS.body, 1));
  if (game.state === "over") {
    drawPanel();
  }
}

function frame(now) {
  if (last === null) {
    last = now;
  }
  owed += now - last;
  last = now;
  let changed = false;
  while (owed >= STEP_MS) {
    owed -= STEP_MS;
    changed = game.step() !== "idle" || changed;
  }
  if (game.state !== "running") {
    owed = 0;
  }
  if (changed) {
    draw();
  }
  window.requestAnimationFrame(frame);
}

document.addEventListener("keydown", (event) => {
  if (event.key === "r" || event.key === "R") {
    game.reset();
    draw();
    event.preventDefault();
    return;
  }
  const name = KEYS[event.key];
  if (name) {
    game.turn(name);
    event.preventDefault();
  }
});

draw();
window.requestAnimationFrame(frame);
