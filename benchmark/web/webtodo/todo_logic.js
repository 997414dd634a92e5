// The list of tasks, with no page code: what Add, tick, delete and "Clear done" do.
"use strict";

const SAMPLE_TASKS = ["Buy milk", "Water the plants", "Call the dentist", "Read a chapter", "Fix the bike", "Pay the rent"];

class TodoList {
  constructor(seed) {
    this.tasks = [];
    const first = seed % SAMPLE_TASKS.length;
    this.add(SAMPLE_TASKS[first]);
    this.add(SAMPLE_TASKS[(first + 1 + (seed % 3)) % SAMPLE_TASKS.length]);
  }

  add(text) {
    const clean = text.trim();
    if (!clean) {
      return false;
    }
    this.tasks.push({ text: clean, done: false });
    return true;
  }

  toggle(index) {
    this.tasks[index].done = !this.tasks[index].done;
  }

  remove(index) {
    this.tasks.splice(index, 1);
  }

  clearDone() {
    this.tasks = this.tasks.filter((task) => !task.done);
  }

  left() {
    return this.tasks.filter((task) => !task.done).length;
  }
}
