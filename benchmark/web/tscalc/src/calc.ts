// The calculator's rules, with no page code: keys in, the text to show out.

export type Operator = "+" | "-" | "*" | "/";

const MAX_DIGITS = 12;

export function apply(left: number, op: Operator, right: number): number | null {
  switch (op) {
    case "+":
      return left + right;
    case "-":
      return left - right;
    case "*":
      return left * right;
    case "/":
      return right === 0 ? null : left / right;
  }
}

export function format(value: number): string {
  if (!Number.isFinite(value)) {
    return "Error";
  }
  const text = String(Number(value.toPrecision(MAX_DIGITS)));
  return text.length > MAX_DIGITS + 2 ? value.toExponential(6) : text;
}

export class Calculator {
  display = "0";
  private stored: number | null = null;
  private pending: Operator | null = null;
  private fresh = true;

  digit(d: string): void {
    if (this.display === "Error" || this.fresh) {
      this.display = d;
      this.fresh = d === "0";
      return;
    }
    if (this.display.replace(/[-.]/g, "").length < MAX_DIGITS) {
      this.display += d;
    }
  }

  point(): void {
    if (this.display === "Error" || this.fresh) {
      this.display = "0.";
      this.fresh = false;
    } else if (!this.display.includes(".")) {
      this.display += ".";
    }
  }

  operator(op: Operator): void {
    if (this.display === "Error") {
      return;
    }
    if (this.pending !== null && !this.fresh) {
      this.equals();
      if (this.display === "Error") {
        return;
      }
    }
    this.stored = Number(this.display);
    this.pending = op;
    this.fresh = true;
  }

  equals(): void {
    if (this.pending === null || this.stored === null) {
      return;
    }
    const result = apply(this.stored, this.pending, Number(this.display));
    this.display = result === null ? "Error" : format(result);
    this.stored = null;
    this.pending = null;
    this.fresh = true;
  }

  clear(): void {
    this.display = "0";
    this.stored = null;
    this.pending = null;
    this.fresh = true;
  }

  back(): void {
    if (this.fresh || this.display === "Error") {
      return;
    }
    this.display = this.display.length > 1 ? this.display.slice(0, -1) : "0";
    this.fresh = this.display === "0";
  }
}
