// The page: renders the list after every change; Enter (or Add) adds, Escape empties the field.
"use strict";

function pageSeed() {
  const query = new URLSearchParams(window.location.search).get("seed");
  const given = query !== null ? query : window.PLAYCODER_SEED;
  const seed = parseInt(given === undefined ? "0" : String(given), 10);
  return Number.isFinite(seed) ? Math.abs(seed) : 0;
}

const list = new TodoList(pageSeed());
const field = document.getElementById("new-task");
const tasks = document.getElementById("tasks");
const count = document.getElementById("count");

function render() {
  tasks.replaceChildren();
  list.tasks.forEach((task, index) => {
    const item = document.createElement("li");
    item.className = task.done ? "done" : "";
    const box = document.createElement("input");
    box.type = "checkbox";
    box.checked = task.done;
    box.addEventListener("change", () => { list.toggle(index); render(); });
    const text = document.createElement("span");
    text.textContent = task.text;
    const remove = document.createElement("button");
    remove.type = "button";
    remove.textContent = "\u00d7";
    remove.title = "Delete " + task.text;
    remove.addEventListener("click", () => { list.remove(index); render(); });
    item.append(box, text, remove);
    tasks.append(item);
  });
  const left = list.left();
  count.textContent = left + (left === 1 ? " task left" : " tasks left");
}

document.getElementById("new-form").addEventListener("submit", (event) => {
  event.preventDefault();
  if (list.add(field.value)) {
    field.value = "";
    render();
  }
});

field.addEventListener("keydown", (event) => {
  if (event.key === "Escape") {
    field.value = "";
  }
});

document.getElementById("clear-done").addEventListener("click", () => {
  list.clearDone();
  render();
});

render();
field.focus();
