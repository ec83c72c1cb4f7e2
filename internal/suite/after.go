package suite

import (
	"fmt"
	"time"
)

// ParseDate reads a date as --after takes it: RFC 3339 or YYYY-MM-DD.
func ParseDate(date string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339, time.DateOnly} {
		if t, err := time.Parse(layout, date); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a date like 2024-05-01 or 2024-05-01T12:00:00Z", date)
}

// After returns whether a case is dated after date (see ParseDate; e.g. a model's training
// cutoff); cases without a date are not. An empty date keeps every case (nil).
func After(date string) (func(*Case) bool, error) {
	if date == "" {
		return nil, nil
	}
	t, err := ParseDate(date)
	if err != nil {
		return nil, err
	}
	return func(c *Case) bool {
		d, err := time.Parse(time.RFC3339, c.Date)
		return c.Date != "" && err == nil && d.After(t)
	}, nil
}
