// Fixture for the code graph tests: Java classes, an interface, recursion, a method reference.
package fixture;

import java.util.List;
import java.util.function.IntUnaryOperator;

interface Shape {
  double area();

  default String describe() {
    return "shape of area " + area();
  }
}

class Square implements Shape {
  private final double side;

  Square(double side) {
    this.side = side;
  }

  public double area() {
    return side * side;
  }
}

public class Shapes {
  static int fact(int n) {
    return n <= 1 ? 1 : n * fact(n - 1);
  }

  static int apply(IntUnaryOperator op, int v) {
    return op.applyAsInt(v);
  }

  public static void main(String[] args) {
    Shape s = new Square(2);
    double a = s.area();
    int f = apply(Shapes::fact, 5);
    System.out.println(s.describe() + a + f + Report.describe(List.of(s)));
  }
}
