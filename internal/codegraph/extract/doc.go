// Package extract parses one file with tree-sitter and reads its definitions and call sites: the
// only cgo of vulnbench. A FileIndexer prepares the text (package prep), parses it through the
// runtime's C API into a flat array of named nodes in one cgo call (flat.c, with a per-file bump
// arena, arena.c), runs the language's extractor over that array in Go, and recovers definitions
// the parser could not close (extract_unclosed.go). It also holds the content rules that skip a
// file (binary, generated, minified) and CheckSyntax. It reads no file and knows no repository.
package extract
