package snapshot_test

import (
	"errors"
	"io"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/snapshot"
)

// readRepo is a small repository with links that stay inside.
func readRepo(t *testing.T) (*gitRepo, string) {
	t.Helper()
	r := newRepo(t)
	r.write("README", "hello\n")
	r.write("src/main.c", "int main(void) { return 0; }\n")
	r.write("src/util/u.c", "void u(void) {}\n")
	r.write("bin.dat", "\x7fELF\x00\x01\x02")
	r.write("latin1.c", "/* caf\xe9 */\n")
	r.write("empty", "")
	r.symlink("main.c", "src/inner")
	r.symlink("src", "linkdir")
	return r, r.commit("c")
}

func TestRead(t *testing.T) {
	r, commit := readRepo(t)
	s := get(t, newCache(t, snapshot.Options{}), r.dir, commit)
	const mainC = "int main(void) { return 0; }\n"
	for _, tc := range []struct {
		name string
		want string
		err  error
	}{
		{name: "README", want: "hello\n"},
		{name: "./README", want: "hello\n"},
		{name: "src/../README", want: "hello\n"},
		{name: "src//main.c", want: mainC},
		{name: "src/inner", want: mainC},      // a link inside is followed
		{name: "linkdir/main.c", want: mainC}, // so is a link to a directory inside, in a path
		{name: "linkdir/inner", want: mainC},
		{name: "empty", want: ""},
		{name: "../README", err: snapshot.ErrOutside},
		{name: "src/../../README", err: snapshot.ErrOutside},
		{name: "/README", err: snapshot.ErrOutside},
		{name: "/etc/passwd", err: snapshot.ErrOutside},
		{name: "..", err: snapshot.ErrOutside},
		{name: "nope.c", err: fs.ErrNotExist},
		{name: "src", err: fs.ErrInvalid}, // a directory
		{name: "a\x00b", err: fs.ErrInvalid},
	} {
		got, err := s.ReadFile(tc.name)
		if tc.err != nil {
			if !errors.Is(err, tc.err) {
				t.Errorf("ReadFile(%q) = %q, %v; want an error matching %v", tc.name, got, err, tc.err)
			}
			if c, err := s.Read(tc.name); !errors.Is(err, tc.err) {
				t.Errorf("Read(%q) = %q, %v; want an error matching %v", tc.name, c.Data, err, tc.err)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("ReadFile(%q) = %q, %v; want %q", tc.name, got, err, tc.want)
		}
		c, err := s.Read(tc.name)
		if d := cmp.Diff(snapshot.Content{Data: []byte(tc.want), Size: int64(len(tc.want))}, c); err != nil || d != "" {
			t.Errorf("Read(%q): %v (-want +got):\n%s", tc.name, err, d)
		}
		f, err := s.Open(tc.name)
		if err != nil {
			t.Errorf("Open(%q): %v", tc.name, err)
			continue
		}
		b, err := io.ReadAll(f)
		f.Close()
		if err != nil || string(b) != tc.want {
			t.Errorf("Open(%q) and read: %q, %v; want %q", tc.name, b, err, tc.want)
		}
	}
}

func TestBinary(t *testing.T) {
	r, commit := readRepo(t)
	s := get(t, newCache(t, snapshot.Options{}), r.dir, commit)
	for name, want := range map[string]bool{"bin.dat": true, "latin1.c": false, "README": false, "empty": false} {
		c, err := s.Read(name)
		if err != nil || c.Binary != want {
			t.Errorf("Read(%q).Binary = %v, %v; want %v", name, c.Binary, err, want)
		}
	}
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{strings.Repeat("a", snapshot.BinarySniff-1) + "\x00", true},
		{strings.Repeat("a", snapshot.BinarySniff) + "\x00", false}, // past the sniff
		{"\xff\xfe invalid UTF-8", false},
	} {
		if got := snapshot.IsBinary([]byte(tc.in)); got != tc.want {
			t.Errorf("IsBinary(%d bytes ending %q) = %v, want %v", len(tc.in), tc.in[len(tc.in)-1:], got, tc.want)
		}
	}
}

func walkAll(t *testing.T, s *snapshot.Snapshot, name string) ([]string, error) {
	t.Helper()
	var got []string
	err := s.Walk(name, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		kind := "f"
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			kind = "l"
		case d.IsDir():
			kind = "d"
		}
		got = append(got, kind+" "+p)
		return nil
	})
	return got, err
}

func TestWalkAndReadDir(t *testing.T) {
	r, commit := readRepo(t)
	s := get(t, newCache(t, snapshot.Options{}), r.dir, commit)
	got, err := walkAll(t, s, ".")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"d .", "f README", "f bin.dat", "f empty", "f latin1.c", "l linkdir", "d src", "l src/inner", "f src/main.c", "d src/util", "f src/util/u.c"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Walk(.) (-want +got):\n%s", d)
	}
	// A link given as the root is not descended either.
	if got, err := walkAll(t, s, "linkdir"); err != nil || !cmp.Equal(got, []string{"l linkdir"}) {
		t.Errorf("Walk(linkdir) = %v, %v; want just the link", got, err)
	}
	if got, err := walkAll(t, s, "./src/../src/util"); err != nil || !cmp.Equal(got, []string{"d src/util", "f src/util/u.c"}) {
		t.Errorf("Walk(./src/../src/util) = %v, %v", got, err)
	}
	if _, err := walkAll(t, s, "../"); !errors.Is(err, snapshot.ErrOutside) {
		t.Errorf("Walk(../): %v, want ErrOutside", err)
	}
	// SkipDir skips a directory.
	var seen []string
	err = s.Walk(".", func(p string, d fs.DirEntry, err error) error {
		seen = append(seen, p)
		if p == "src" {
			return fs.SkipDir
		}
		return err
	})
	if want := []string{".", "README", "bin.dat", "empty", "latin1.c", "linkdir", "src"}; err != nil || !cmp.Equal(seen, want) {
		t.Errorf("Walk with SkipDir at src: %v, %v; want %v", seen, err, want)
	}

	es, err := s.ReadDir("src")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name()+" "+e.Type().String())
	}
	if d := cmp.Diff([]string{"inner L---------", "main.c ----------", "util d---------"}, names); d != "" {
		t.Errorf("ReadDir(src) (-want +got):\n%s", d)
	}
	if es, err := s.ReadDir("linkdir"); err != nil || len(es) != 3 {
		t.Errorf("ReadDir(linkdir) (a link inside, followed when named): %d entries, %v", len(es), err)
	}
}

func TestLimits(t *testing.T) {
	r, commit := readRepo(t)
	c := newCache(t, snapshot.Options{Limits: snapshot.Limits{MaxEntries: 3, MaxTotalBytes: 10, MaxFileSize: 8}})
	s := get(t, c, r.dir, commit)

	es, err := s.ReadDir(".")
	if !errors.Is(err, snapshot.ErrTooMany) || len(es) != 3 {
		t.Errorf("ReadDir(.) with MaxEntries 3: %d entries, %v; want 3 and ErrTooMany", len(es), err)
	}
	got, err := walkAll(t, s, ".")
	if !errors.Is(err, snapshot.ErrTooMany) || len(got) > 3 {
		t.Errorf("Walk(.) with MaxEntries 3: %v, %v; want at most 3 and ErrTooMany", got, err)
	}
	if _, err := s.ReadFile("src/main.c"); !errors.Is(err, snapshot.ErrTooLarge) || !strings.Contains(err.Error(), "29 bytes, over the 8-byte read limit") {
		t.Errorf("ReadFile of 29 bytes with MaxFileSize 8: %v", err)
	}
	if _, err := s.Open("src/main.c"); !errors.Is(err, snapshot.ErrTooLarge) {
		t.Errorf("Open of 29 bytes with MaxFileSize 8: %v", err)
	}
	cont, err := s.Read("src/main.c")
	if d := cmp.Diff(snapshot.Content{Data: []byte("int main"), Size: 29, Truncated: true}, cont); err != nil || d != "" {
		t.Errorf("Read of 29 bytes with MaxFileSize 8: %v (-want +got):\n%s", err, d)
	}
	// 8 of the budget's 10 bytes are spent; README (6) does not fit, bin.dat's 7 neither.
	if b, err := s.ReadFile("README"); !errors.Is(err, snapshot.ErrBudget) {
		t.Errorf("ReadFile(README) past the budget: %q, %v; want ErrBudget", b, err)
	}
	if s.Spent() != 8 {
		t.Errorf("Spent = %d, want 8", s.Spent())
	}
	// Another handle has its own budget.
	s2 := get(t, c, r.dir, commit)
	if b, err := s2.ReadFile("README"); err != nil || string(b) != "hello\n" {
		t.Errorf("ReadFile(README) on a fresh handle: %q, %v", b, err)
	}
	f, err := s2.Open("bin.dat")
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(f)
	f.Close()
	if !errors.Is(err, snapshot.ErrBudget) || len(b) != 4 {
		t.Errorf("reading 7 bytes with 4 left: %d bytes, %v; want 4 and ErrBudget", len(b), err)
	}
}

// TestFS checks the fs.FS view with testing/fstest, and that it keeps the rules.
func TestFS(t *testing.T) {
	r, commit := readRepo(t)
	s := get(t, newCache(t, snapshot.Options{}), r.dir, commit)
	fsys := s.FS()
	if err := fstest.TestFS(fsys, "README", "src/main.c", "src/util/u.c", "bin.dat", "empty"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"../README", "/README", "src/../README", "./README"} {
		if _, err := fsys.Open(name); !errors.Is(err, fs.ErrInvalid) || !errors.Is(err, snapshot.ErrOutside) {
			t.Errorf("FS Open(%q): %v; want fs.ErrInvalid and ErrOutside", name, err)
		}
	}
	if b, err := fs.ReadFile(fsys, "src/inner"); err != nil || !strings.HasPrefix(string(b), "int main") {
		t.Errorf("FS ReadFile(src/inner): %q, %v", b, err)
	}
}
