// Like a 2048 game's start: tiles placed by chance, and one more by chance at every key.
const board = document.getElementById("board").getContext("2d");
const bytes = new Uint8Array(4);
crypto.getRandomValues(bytes);
const tiles = [];
function place() {
  tiles.push({ x: Math.floor(Math.random() * 16) * 40, y: Math.floor(Math.random() * 7) * 40,
               hue: Math.floor(Math.random() * 360) });
}
function draw() {
  board.fillStyle = "#fff";
  board.fillRect(0, 0, 640, 300);
  for (const t of tiles) { board.fillStyle = `hsl(${t.hue}, 80%, 45%)`; board.fillRect(t.x, t.y, 36, 36); }
  document.getElementById("drawn").textContent = `${tiles.length} tiles, ${bytes.join(".")}`;
}
place(); place(); place();
draw();
document.addEventListener("keydown", (e) => { if (e.key === " ") { place(); draw(); } });
