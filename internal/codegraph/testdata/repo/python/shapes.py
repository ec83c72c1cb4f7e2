"""Fixture for the code graph tests: Python classes, recursion, callbacks."""
from report import describe


class Square:
    def __init__(self, side):
        self.side = side

    def area(self):
        return self.side * self.side

    def describe(self):
        return "square of area %s" % self.area()


def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)


def apply(op, v):
    return op(v)


def main():
    s = Square(2)
    total = apply(fact, 5) + s.area()
    print(describe([s]), total)


if __name__ == "__main__":
    main()
