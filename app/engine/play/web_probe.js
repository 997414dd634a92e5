// Added by the engine to every document of a played web page before the page's own scripts
// (Page.addScriptToEvaluateOnNewDocument).  It counts what the page has pending (timers, animation frames,
// fetches) so the engine can tell when a step has settled, and lists the page's controls with their boxes.
// It never changes what the page does: every wrapped function calls the original with the same arguments.
(() => {
  if (window.__playcoder) return;
  const timers = new Map();   // id -> {due, delay, repeating}
  let frames = 0, loopFrames = 0, inFrame = false, firing = null, fetches = 0;
  const now = () => performance.now();
  const origSetTimeout = window.setTimeout, origClearTimeout = window.clearTimeout;
  const origSetInterval = window.setInterval, origClearInterval = window.clearInterval;
  const origRaf = window.requestAnimationFrame, origCaf = window.cancelAnimationFrame;
  window.setTimeout = function (fn, delay, ...args) {
    const ms = Math.max(0, Number(delay) || 0);
    const repeating = firing !== null && firing.fn === fn && firing.delay === ms;
    let id = 0;
    const run = typeof fn === "function" ? function () {
      timers.delete(id);
      const outer = firing; firing = {fn, delay: ms};
      try { return fn.apply(this, arguments); } finally { firing = outer; }
    } : fn;
    id = origSetTimeout.call(window, run, delay, ...args);
    timers.set(id, {due: now() + ms, delay: ms, repeating});
    return id;
  };
  window.clearTimeout = function (id) { timers.delete(id); return origClearTimeout.call(window, id); };
  window.setInterval = function (fn, delay, ...args) {
    const ms = Math.max(0, Number(delay) || 0);
    let id = 0;
    const run = typeof fn === "function" ? function () {
      const t = timers.get(id); if (t) t.due = now() + ms;
      return fn.apply(this, arguments);
    } : fn;
    id = origSetInterval.call(window, run, delay, ...args);
    timers.set(id, {due: now() + ms, delay: ms, repeating: true});
    return id;
  };
  window.clearInterval = function (id) { timers.delete(id); return origClearInterval.call(window, id); };
  window.requestAnimationFrame = function (fn) {
    const loop = inFrame;
    frames += 1; if (loop) loopFrames += 1;
    return origRaf.call(window, function (t) {
      frames -= 1; if (loop) loopFrames -= 1;
      const outer = inFrame; inFrame = true;
      try { return fn(t); } finally { inFrame = outer; }
    });
  };
  window.cancelAnimationFrame = function (id) { return origCaf.call(window, id); };
  if (window.fetch) {
    const origFetch = window.fetch;
    window.fetch = function () {
      fetches += 1;
      const done = () => { fetches -= 1; };
      const p = origFetch.apply(this, arguments);
      p.then(done, done);
      return p;
    };
  }
  const origSend = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function () {
    fetches += 1;
    this.addEventListener("loadend", () => { fetches -= 1; }, {once: true});
    return origSend.apply(this, arguments);
  };

  // Two animation frames: what the last handler changed has been painted when the answer comes.
  const painted = () => new Promise((resolve) => {
    const t = origSetTimeout.call(window, resolve, 100);  // a hidden page gets no frames: do not wait forever
    origRaf.call(window, () => origRaf.call(window, () => { origClearTimeout.call(window, t); resolve(); }));
  });

  function idle() {
    const t = now();
    let next = null, repeating = false;
    for (const timer of timers.values()) {
      const left = Math.max(0, timer.due - t);
      if (next === null || left < next) { next = left; repeating = timer.repeating; }
    }
    if (frames > 0 && (next === null || 16 < next)) { next = 16; repeating = loopFrames >= frames; }
    return {idle: fetches === 0, next_timer_ms: next, repeating, fetches};
  }

  const KIND = {BUTTON: "button", A: "button", TEXTAREA: "text", SELECT: "list", CANVAS: "canvas",
                SUMMARY: "button", LABEL: "label"};
  const INPUT_KIND = {checkbox: "check", radio: "radio", range: "scale", button: "button", submit: "button",
                      reset: "button", image: "button"};
  const SELECTOR = "button, a[href], input, textarea, select, canvas, summary, [role=button], [role=link], " +
                   "[role=checkbox], [role=tab], [role=menuitem], [onclick], [contenteditable=''], " +
                   "[contenteditable=true], [tabindex]";
  function kindOf(el) {
    if (el.tagName === "INPUT") return INPUT_KIND[(el.type || "text").toLowerCase()] || "entry";
    if (el.isContentEditable) return "text";
    const role = el.getAttribute("role");
    if (role === "checkbox") return "check";
    if (role === "menuitem") return "menuitem";
    return KIND[el.tagName] || (role || el.onclick || el.hasAttribute("tabindex") ? "button" : "other");
  }
  function textOf(el) {
    const own = el.getAttribute("aria-label") || el.getAttribute("title") || "";
    if (el.tagName === "INPUT" || el.tagName === "TEXTAREA") return String(el.value || el.placeholder || own);
    if (el.tagName === "SELECT") return el.selectedOptions.length ? el.selectedOptions[0].text : own;
    return (own || el.innerText || el.textContent || "").trim().replace(/\s+/g, " ").slice(0, 200);
  }
  function widgets() {
    const out = [], scale = window.devicePixelRatio || 1;
    const dx = Math.max(0, Math.round((window.outerWidth - window.innerWidth) / 2));
    const dy = Math.max(0, window.outerHeight - window.innerHeight - dx);
    for (const el of document.querySelectorAll(SELECTOR)) {
      if (out.length >= 500) break;
      const r = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      const visible = r.width > 0 && r.height > 0 && style.visibility !== "hidden" && style.display !== "none" &&
        r.bottom > 0 && r.right > 0 && r.top < window.innerHeight && r.left < window.innerWidth;
      const box = [r.left, r.top, r.right, r.bottom].map((v, i) => Math.round(v * scale) + (i % 2 ? dy : dx));
      out.push({kind: kindOf(el), cls: el.tagName.toLowerCase(), text: textOf(el), enabled: !el.disabled,
                visible, box, has_command: kindOf(el) !== "label" && kindOf(el) !== "other"});
    }
    return out;
  }
  Object.defineProperty(window, "__playcoder", {value: Object.freeze({idle, widgets, painted}), enumerable: false});
})();
