// Fixture for the code graph tests: JavaScript classes, recursion, callbacks.
const { describe } = require('./report');

class Square {
  constructor(side) {
    this.side = side;
  }

  area() {
    return this.side * this.side;
  }
}

function fact(n) {
  return n <= 1 ? 1 : n * fact(n - 1);
}

const apply = (op, v) => op(v);

function main() {
  const s = new Square(2);
  const total = apply(fact, 5) + s.area();
  console.log(describe([s]), total);
}

module.exports = { main };
