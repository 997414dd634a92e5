// Added by the engine to every document of a played web page before the page's own scripts
// (Page.addScriptToEvaluateOnNewDocument).  It counts what the page has pending (timers, animation frames,
// fetches) so the engine can tell when a step has settled, and lists the page's controls with their boxes.
// It never changes what the page does: every wrapped function calls the original with the same arguments.
(() => {
  if (window.__playcoder) return;
  const timers = new Map();   // id -> {due, delay, repeating}
  let frames = 0, loopFrames = 0, inFrame = false, firing = null, fetches = 0;
  const origSetTimeout = window.setTimeout, origClearTimeout = window.clearTimeout;
  const origSetInterval = window.setInterval, origClearInterval = window.clearInterval;
  const origRaf = window.requestAnimationFrame, origCaf = window.cancelAnimationFrame;
  const origNow = performance.now.bind(performance);

  // The held clock (differential play, a frozen game): time stands still until the engine plays frames.
  // Date, performance.now, timers and animation frames then all run on it, so a page shows the same frame
  // after the same inputs and frames, however loaded the machine.
  const held = window.__playcoderHold === true;
  const FRAME_MS = 1000 / 60, EPOCH_MS = 1767225600000;  // 2026-01-01, the same in every run
  let vnow = 0, vnext = 1;
  const vtimers = new Map(), vframes = new Map();
  // A paused clock (--freeze-while-thinking): the page's time stands still and its timers and animation
  // frames wait while the tester thinks; the time paused is left out of its clocks afterwards.
  let skipped = 0, pausedAt = null;
  const deferred = [];
  const now = held ? () => vnow : () => (pausedAt !== null ? pausedAt : origNow()) - skipped;
  const later = (run) => function () {
    if (pausedAt !== null) { const args = arguments; deferred.push(() => run.apply(this, args)); return undefined; }
    return run.apply(this, arguments);
  };
  function pause() { if (!held && pausedAt === null) pausedAt = origNow(); return true; }
  function resume() {
    if (pausedAt === null) return true;
    skipped += origNow() - pausedAt;
    pausedAt = null;
    for (const run of deferred.splice(0)) { try { run(); } catch (e) { report(e); } }
    return true;
  }
  const report = (e) => { try { window.reportError(e); } catch (_) { /* the page goes on */ } };
  const schedule = held ? (run, ms, every) => { const id = vnext++; vtimers.set(id, {due: vnow + ms, run, every}); return id; }
                        : (run, ms, every) => (every ? origSetInterval : origSetTimeout).call(window, later(run), ms);
  const unschedule = held ? (id) => { vtimers.delete(id); }
                          : (id) => { origClearTimeout.call(window, id); origClearInterval.call(window, id); };
  const callable = (fn, args) => typeof fn === "function" ? function () { return fn.apply(window, args); }
                                                          : function () { return (0, eval)(String(fn)); };
  if (!held) {
    const realDateNow = Date.now;
    Date.now = () => realDateNow() - Math.floor(skipped) - (pausedAt !== null ? Math.floor(origNow() - pausedAt) : 0);
    performance.now = now;
  }
  if (held) {
    const RealDate = Date;
    const VDate = function (...a) {
      if (!new.target) return new RealDate(EPOCH_MS + vnow).toString();
      return a.length ? new RealDate(...a) : new RealDate(EPOCH_MS + vnow);
    };
    VDate.prototype = RealDate.prototype;
    VDate.now = () => EPOCH_MS + Math.floor(vnow);
    VDate.parse = RealDate.parse;
    VDate.UTC = RealDate.UTC;
    window.Date = VDate;
    performance.now = () => vnow;
  }

  window.setTimeout = function (fn, delay, ...args) {
    const ms = Math.max(0, Number(delay) || 0);
    const repeating = firing !== null && firing.fn === fn && firing.delay === ms;
    const body = callable(fn, args);
    let id = 0;
    const run = function () {
      timers.delete(id);
      const outer = firing; firing = {fn, delay: ms};
      stirs += 1;
      try { return body(); } finally { firing = outer; }
    };
    id = schedule(run, ms, false);
    timers.set(id, {due: now() + ms, delay: ms, repeating});
    return id;
  };
  window.clearTimeout = function (id) { timers.delete(id); unschedule(id); };
  window.setInterval = function (fn, delay, ...args) {
    const ms = Math.max(0, Number(delay) || 0);
    const body = callable(fn, args);
    let id = 0;
    const run = function () {
      const t = timers.get(id); if (t) t.due = now() + ms;
      stirs += 1;
      return body();
    };
    id = schedule(run, ms, true);
    timers.set(id, {due: now() + ms, delay: ms, repeating: true});
    return id;
  };
  window.clearInterval = window.clearTimeout;
  window.requestAnimationFrame = function (fn) {
    const loop = inFrame;
    frames += 1; if (loop) loopFrames += 1;
    const run = function (t) {
      frames -= 1; if (loop) loopFrames -= 1;
      stirs += 1;
      const outer = inFrame; inFrame = true;
      try { return fn(t); } finally { inFrame = outer; }
    };
    if (!held) return origRaf.call(window, later((t) => run(t - skipped)));
    const id = vnext++;
    vframes.set(id, run);
    return id;
  };
  window.cancelAnimationFrame = function (id) {
    if (held && vframes.delete(id)) { frames -= 1; return; }
    if (!held) origCaf.call(window, id);
  };

  function dueTimer(until) {
    let best = null;
    for (const [id, t] of vtimers) if (t.due <= until && (best === null || t.due < best[1].due)) best = [id, t];
    return best;
  }
  // Play n frames of the held clock: the timers due in each, in order, then its animation frames.
  async function advance(n, sent) {
    // Every press and release sent before this call reaches the page before its frames are played (up to
    // half a second: one the browser keeps for itself never comes).
    const end = origNow() + 500;
    while (typeof sent === "number" && inputs < sent && origNow() < end) await painted();
    await presented();
    for (let i = 0; i < n; i++) {
      const until = vnow + FRAME_MS;
      for (let guard = 0, next = dueTimer(until); next !== null && guard < 10000; guard++, next = dueTimer(until)) {
        const [id, t] = next;
        vnow = Math.max(vnow, t.due);
        if (t.every) t.due = vnow + Math.max(1, timers.get(id) ? timers.get(id).delay : 1); else vtimers.delete(id);
        try { t.run(); } catch (e) { report(e); }
      }
      vnow = until;
      const due = [...vframes.values()];
      vframes.clear();
      for (const run of due) { try { run(vnow); } catch (e) { report(e); } }
    }
    await presented();
    return vnow;
  }
  // Presses and releases the page has received (the engine's frame gate waits for the ones it sent).
  let inputs = 0;
  for (const type of ["keydown", "keyup", "mousedown", "mouseup"]) {
    window.addEventListener(type, () => { inputs += 1; }, true);
  }
  // Everything that can change what the page shows counts as a stir: an event, a timer or frame that ran, a
  // change of the document.  A page not stirred since its last drawn frame, with no animation running, shows
  // what that frame showed: a question that only confirms a picture needs not wait for another frame.
  let stirs = 0, drawnAt = -1;
  const stir = () => { stirs += 1; };
  for (const type of ["keydown", "keyup", "keypress", "mousedown", "mouseup", "mousemove", "click", "dblclick",
                      "contextmenu", "wheel", "input", "change", "focusin", "focusout", "scroll", "resize",
                      "message", "load", "error", "transitionrun", "animationstart"]) {
    window.addEventListener(type, stir, true);
  }
  new MutationObserver(stir).observe(document, {subtree: true, childList: true, attributes: true,
                                                characterData: true});
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

  // An animation frame and the task after it: what the last handler changed has been drawn when the answer
  // comes (settling confirms it with a second answer and picture).
  const painted = () => new Promise((resolve) => {
    const t = origSetTimeout.call(window, resolve, 100);  // a hidden page gets no frames: do not wait forever
    origRaf.call(window, () => origSetTimeout.call(window, () => { origClearTimeout.call(window, t); resolve(); }, 0));
  });
  // Two animation frames: the frame a held clock played has been presented, not only drawn (a look takes one
  // picture, with no second answer to confirm it).
  const presented = () => new Promise((resolve) => {
    const t = origSetTimeout.call(window, resolve, 100);
    origRaf.call(window, () => origRaf.call(window, () => { origClearTimeout.call(window, t); resolve(); }));
  });

  // Idle once what the last handler changed has been drawn; with ``quick``, at once when nothing stirred the page
  // since the frame the previous question waited for (the engine asks so only to confirm a changed picture).
  function settled(quick) {
    const still = quick && drawnAt === stirs && fetches === 0 && document.fonts.status !== "loading" &&
                  !document.getAnimations().some((a) => a.playState === "running");
    if (still) return Promise.resolve(idle());
    return painted().then(() => { drawnAt = stirs; return idle(); });
  }

  function idle() {
    if (held) return {idle: fetches === 0, next_timer_ms: null, repeating: false, fetches};  // time stands still
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
  Object.defineProperty(window, "__playcoder", {value: Object.freeze({idle, settled, widgets, painted, advance, held, pause, resume}), enumerable: false});
})();
