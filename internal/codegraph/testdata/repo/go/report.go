package shapes

import "strings"

func describe(s *Square) string {
	return strings.Repeat("#", int(s.Area()))
}
