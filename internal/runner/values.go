package runner

import (
	"strconv"
	"time"
)

// Values reads subject flags from their text, as a manifest keeps them; a missing or unreadable
// value reads as the zero value (the flag's default was recorded when the run started).
type Values map[string]string

// String implements subject.Values.
func (v Values) String(name string) string { return v[name] }

// Int implements subject.Values.
func (v Values) Int(name string) int { n, _ := strconv.Atoi(v[name]); return n }

// Int64 implements subject.Values.
func (v Values) Int64(name string) int64 { n, _ := strconv.ParseInt(v[name], 10, 64); return n }

// Float implements subject.Values.
func (v Values) Float(name string) float64 { f, _ := strconv.ParseFloat(v[name], 64); return f }

// Bool implements subject.Values.
func (v Values) Bool(name string) bool { b, _ := strconv.ParseBool(v[name]); return b }

// Duration implements subject.Values.
func (v Values) Duration(name string) time.Duration { d, _ := time.ParseDuration(v[name]); return d }
