// Fixture for the code graph tests: C++ classes, namespaces, a lambda.
namespace geo {

class Shape {
 public:
  virtual ~Shape() {}
  virtual double area() const = 0;
  double twice() const { return 2 * area(); }
};

class Square : public Shape {
 public:
  explicit Square(double s) : side_(s) {}
  double area() const override { return side_ * side_; }

 private:
  double side_;
};

double total(const Shape &a, const Shape &b) {
  return a.area() + b.area();
}

}  // namespace geo

static int count_calls(int n) {
  return n > 0 ? count_calls(n - 1) + 1 : 0;
}

int main() {
  geo::Square sq(2.0);
  double t = geo::total(sq, sq) + sq.twice();
  auto cb = [](int x) { return count_calls(x); };
  return static_cast<int>(t) + cb(3);
}
