// Saving reads a settings object that was never made: the click handler throws.
let settings;
document.getElementById("save").addEventListener("click", () => {
  document.getElementById("said").textContent = "saving";
  const where = settings.folder;
  document.getElementById("said").textContent = "saved to " + where;
});
