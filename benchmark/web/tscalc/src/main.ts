// The page: a grid of buttons and the keyboard, both feeding one Calculator.
import { Calculator, Operator } from "./calc.js";

const LAYOUT: [string, string][] = [
  ["C", "clear"], ["\u2190", "back"], ["/", "op"], ["*", "op"],
  ["7", "digit"], ["8", "digit"], ["9", "digit"], ["-", "op"],
  ["4", "digit"], ["5", "digit"], ["6", "digit"], ["+", "op"],
  ["1", "digit"], ["2", "digit"], ["3", "digit"], ["=", "equals"],
  ["0", "digit"], [".", "point"],
];
const KEYS: Record<string, string> = { Enter: "=", "=": "=", Escape: "C", Backspace: "\u2190" };

const calc = new Calculator();
const display = document.getElementById("display") as HTMLDivElement;
const keys = document.getElementById("keys") as HTMLDivElement;

function press(label: string): void {
  if (/^[0-9]$/.test(label)) {
    calc.digit(label);
  } else if (label === ".") {
    calc.point();
  } else if (label === "=") {
    calc.equals();
  } else if (label === "C") {
    calc.clear();
  } else if (label === "\u2190") {
    calc.back();
  } else if ("+-*/".includes(label)) {
    calc.operator(label as Operator);
  }
  display.textContent = calc.display;
}

for (const [label, role] of LAYOUT) {
  const button = document.createElement("button");
  button.textContent = label;
  button.tabIndex = -1;
  if (role === "op" || role === "equals") {
    button.className = "op";
  }
  if (label === "0") {
    button.className = "wide";
  }
  button.addEventListener("mousedown", (event) => event.preventDefault());
  button.addEventListener("click", () => press(label));
  keys.append(button);
}

document.addEventListener("keydown", (event) => {
  const label = KEYS[event.key] ?? event.key;
  if (/^[0-9]$/.test(label) || "+-*/.=C\u2190".includes(label)) {
    press(label);
    event.preventDefault();
  }
});
