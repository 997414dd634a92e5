// The button starts a search whose loop never ends: the page's main thread never comes back.
document.getElementById("go").addEventListener("click", () => {
  document.getElementById("said").textContent = "counting";
  let n = 2;
  while (n > 1) { n += 1; if (n > 1e15) n = 2; }
  document.getElementById("said").textContent = "done";
});
