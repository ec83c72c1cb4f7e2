// Package example holds, in its tests, the small model subject docs/extending.md quotes whole
// (yesno_test.go) and the test that keeps that page equal to it (doc_test.go).
package example
