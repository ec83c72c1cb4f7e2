package binfile_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/binfile"
)

func TestReader(t *testing.T) {
	var b []byte
	b = binary.AppendUvarint(b, 300)
	b = binary.AppendUvarint(b, 5)
	b = append(b, "hello"...)
	b = binary.AppendUvarint(b, 1<<40)
	for _, tc := range []struct {
		name string
		read func(r *binfile.Reader) []any
		want []any
		err  string
	}{
		{"values in order", func(r *binfile.Reader) []any { return []any{r.U(), r.Take(r.N(10)), r.U()} },
			[]any{uint64(300), "hello", uint64(1 << 40)}, ""},
		{"count out of range, and it sticks", func(r *binfile.Reader) []any { return []any{r.N(300), r.U(), r.Take(1)} },
			[]any{0, uint64(0), ""}, "corrupt test file: 300 out of range (limit 300)"},
		{"a run past the end", func(r *binfile.Reader) []any { r.U(); r.U(); return []any{r.Take(100), r.U()} },
			[]any{"", uint64(0)}, "truncated test file"},
		{"a varint past the end", func(r *binfile.Reader) []any { r.U(); r.U(); r.Take(5); r.U(); return []any{r.U()} },
			[]any{uint64(0)}, "truncated or corrupt test file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &binfile.Reader{Data: string(b), What: "test file"}
			if d := cmp.Diff(tc.want, tc.read(r)); d != "" {
				t.Errorf("values (-want +got):\n%s", d)
			}
			got := ""
			if r.Err != nil {
				got = r.Err.Error()
			}
			if got != tc.err {
				t.Errorf("error %q, want %q", got, tc.err)
			}
		})
	}
}

// WriteAtomic makes the directory, replaces the file whole and leaves no temporary file behind.
func TestWriteAtomic(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	name := filepath.Join(dir, "f.bin")
	for _, body := range []string{"first version", "second"} {
		if err := binfile.WriteAtomic(name, []byte(body)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(name)
		if err != nil || string(got) != body {
			t.Fatalf("read back %q, %v; want %q", got, err, body)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		t.Errorf("directory holds %v (%v), want only f.bin", entries, err)
	}
}
