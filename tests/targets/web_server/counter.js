let count = 0;
const shown = document.getElementById("count");
function show() { shown.textContent = String(count); }
document.getElementById("plus").addEventListener("click", () => { count += 1; show(); });
document.getElementById("reset").addEventListener("click", () => { count = 0; show(); });
document.addEventListener("keydown", (e) => {
  if (e.key === "+" || e.key === "ArrowUp") { count += 1; show(); }
  if (e.key === "r") { count = 0; show(); }
});
