// Package shapes is a fixture for the code graph tests: methods, recursion, function values.
package shapes

import "fmt"

type Square struct{ side float64 }

func (s *Square) Area() float64 { return s.side * s.side }

func Fact(n int) int {
	if n <= 1 {
		return 1
	}
	return n * Fact(n-1)
}

func apply(op func(int) int, v int) int {
	return op(v)
}

func Main() {
	s := &Square{side: 2}
	f := apply(Fact, 5)
	fmt.Println(s.Area(), f, describe(s))
}
