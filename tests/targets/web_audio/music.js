// Music starts with the page, before anyone pressed anything: a browser that asks for a gesture first
// rejects play() with NotAllowedError, which this page (like many games) never catches.
function tone() {
  const rate = 8000, samples = 800, bytes = new Uint8Array(44 + samples);
  const view = new DataView(bytes.buffer);
  const text = (at, s) => { for (let i = 0; i < s.length; i += 1) bytes[at + i] = s.charCodeAt(i); };
  text(0, "RIFF"); view.setUint32(4, 36 + samples, true); text(8, "WAVEfmt ");
  view.setUint32(16, 16, true); view.setUint16(20, 1, true); view.setUint16(22, 1, true);
  view.setUint32(24, rate, true); view.setUint32(28, rate, true); view.setUint16(32, 1, true);
  view.setUint16(34, 8, true); text(36, "data"); view.setUint32(40, samples, true);
  for (let i = 0; i < samples; i += 1) bytes[44 + i] = 128 + Math.round(60 * Math.sin(i / 3));
  return URL.createObjectURL(new Blob([bytes], { type: "audio/wav" }));
}
const music = new Audio(tone());
music.loop = true;
music.play().then(() => { document.getElementById("said").textContent = "music playing"; });
document.getElementById("beep").addEventListener("click", () => {
  document.getElementById("said").textContent = "beep";
});
