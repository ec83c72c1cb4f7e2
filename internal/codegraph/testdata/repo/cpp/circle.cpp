// A second definition of area, in another file and class.
namespace geo {

class Circle {
 public:
  double area() const;

 private:
  double r_ = 1.0;
};

double Circle::area() const {
  return 3.14159 * r_ * r_;
}

}  // namespace geo
