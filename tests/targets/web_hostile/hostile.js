// Each attempt says what it got; none may reach outside the sandbox.
const said = {};
async function attempt(name, work) {
  try { said[name] = String(await work()).slice(0, 200); } catch (e) { said[name] = "refused: " + e; }
  document.getElementById("out").textContent = JSON.stringify(said, null, 1);
  return said[name];
}
window.outside = () => attempt("outside", async () => (await fetch("http://93.184.216.34/")).status);
window.byName = () => attempt("byName", async () => (await fetch("https://example.com/")).status);
window.passwd = () => attempt("passwd", async () => (await fetch("file:///etc/passwd")).text());
window.popup = () => attempt("popup", () => window.open("about:blank", "_blank") === null ? "blocked" : "opened");
window.download = () => attempt("download", () => {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob(["x".repeat(1000)]));
  a.download = "big.bin";
  document.body.appendChild(a);
  a.click();
  return "clicked";
});
window.workers = () => attempt("workers", () => {
  const src = URL.createObjectURL(new Blob(["let n = 0; setInterval(() => { n++; }, 50);"]));
  let made = 0;
  for (let i = 0; i < 1000; i++) { try { new Worker(src); made++; } catch (e) { break; } }
  return made;
});
