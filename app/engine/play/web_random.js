// Added by the engine to every document of a played web page before the page's own scripts, after
// window.PLAYCODER_SEED is set: Math.random, crypto.getRandomValues and crypto.randomUUID draw from one
// generator seeded by the run's seed, so the same seed gives the same chances in every run and every mode
// (the browser's own generators are seeded per process and per context, which differ between runs).
(() => {
  if (window.__playcoderChance) return;
  window.__playcoderChance = true;
  let state = (Number(window.PLAYCODER_SEED) >>> 0) ^ 0x9e3779b9;
  function next32() {  // mulberry32
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  const random = function random() { return (next32() * 2097152 + (next32() >>> 11)) / 9007199254740992; };
  Object.defineProperty(Math, "random", { value: random, writable: true, configurable: true, enumerable: false });
  if (typeof Crypto === "undefined") return;
  const proto = Crypto.prototype, origFill = proto.getRandomValues;
  const integers = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
    typeof BigInt64Array === "undefined" ? null : BigInt64Array,
    typeof BigUint64Array === "undefined" ? null : BigUint64Array].filter(Boolean);
  const getRandomValues = function getRandomValues(array) {
    if (!integers.some((kind) => array instanceof kind) || array.byteLength > 65536) {
      return origFill.call(this, array);  // the browser's own error for a wrong kind or size
    }
    const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
    for (let i = 0; i < bytes.length; i += 1) bytes[i] = next32() & 255;
    return array;
  };
  Object.defineProperty(proto, "getRandomValues", { value: getRandomValues, writable: true, configurable: true });
  if (typeof proto.randomUUID === "function") {
    const randomUUID = function randomUUID() {
      const b = getRandomValues.call(this, new Uint8Array(16));
      b[6] = (b[6] & 0x0f) | 0x40;
      b[8] = (b[8] & 0x3f) | 0x80;
      const hex = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    };
    Object.defineProperty(proto, "randomUUID", { value: randomUUID, writable: true, configurable: true });
  }
})();
