// The run's seed: `?seed=N` in the page's address, else a PLAYCODER_SEED global, else 0.
// mulberry32 turns it into a generator, so every seed deals the same food every time.
"use strict";

function readSeed() {
  const query = new URLSearchParams(window.location.search).get("seed");
  const given = query !== null ? query : window.PLAYCODER_SEED;
  const seed = parseInt(given === undefined ? "0" : String(given), 10);
  return Number.isFinite(seed) ? seed >>> 0 : 0;
}

function seededRandom(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
