// Space starts a search whose loop never ends: the key handler never returns.
document.addEventListener("keydown", (e) => {
  if (e.key !== " ") return;
  document.getElementById("said").textContent = "searching";
  let n = 2;
  while (n > 1) { n += 1; if (n > 1e15) n = 2; }
  document.getElementById("said").textContent = "found";
});
