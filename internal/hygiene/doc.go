// Package hygiene holds the repository's own checks as Go tests (all_test.go): gofmt, go vet,
// go mod tidy, the dependency deny-list, the packages that must build without cgo, and no
// package state. It has no code of its own.
package hygiene
