package fixture;

import java.util.List;

class Report {
  static String describe(List<Shape> shapes) {
    StringBuilder b = new StringBuilder();
    for (Shape s : shapes) {
      b.append(s.describe());
    }
    return b.toString();
  }
}
