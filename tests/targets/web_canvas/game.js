// A ball that moves by the time between frames (so its place depends on the clock), turns with the arrow
// keys, and a spark every 500 ms at a random place: everything a game reads from time and chance.
const canvas = document.getElementById("game");
const ctx = canvas.getContext("2d");
let x = 50 + Math.random() * 100, y = 200, vx = 120, vy = 0, last = performance.now();
const sparks = [];
setInterval(() => {
  sparks.push([Math.random() * 600, Math.random() * 400, Date.now() % 7]);
  if (sparks.length > 12) sparks.shift();
}, 500);
document.addEventListener("keydown", (e) => {
  if (e.key === "ArrowUp") { vx = 0; vy = -120; }
  if (e.key === "ArrowDown") { vx = 0; vy = 120; }
  if (e.key === "ArrowLeft") { vx = -120; vy = 0; }
  if (e.key === "ArrowRight") { vx = 120; vy = 0; }
});
function frame(t) {
  const dt = (t - last) / 1000;
  last = t;
  x = (x + vx * dt + 600) % 600;
  y = (y + vy * dt + 400) % 400;
  ctx.fillStyle = "#222";
  ctx.fillRect(0, 0, 600, 400);
  for (const [sx, sy, c] of sparks) {
    ctx.fillStyle = `hsl(${c * 50}, 80%, 60%)`;
    ctx.fillRect(sx, sy, 6, 6);
  }
  ctx.fillStyle = "#fc3";
  ctx.beginPath();
  ctx.arc(x, y, 14, 0, Math.PI * 2);
  ctx.fill();
  ctx.fillStyle = "#fff";
  ctx.font = "16px sans-serif";
  ctx.fillText(`t=${(t / 1000).toFixed(2)}`, 10, 20);
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);
