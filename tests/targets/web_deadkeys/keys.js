// A counter played with the keyboard whose key handler stops answering after 3 presses:
// from the fourth key on, it returns before it changes anything.
let count = 0;
let presses = 0;
const shown = document.getElementById("count");
document.addEventListener("keydown", (e) => {
  presses += 1;
  if (presses > 3) { return; }
  if (e.key === "+" || e.key === "ArrowUp") { count += 1; }
  if (e.key === "-" || e.key === "ArrowDown") { count -= 1; }
  if (e.key === "r") { count = 0; }
  shown.textContent = String(count);
});
