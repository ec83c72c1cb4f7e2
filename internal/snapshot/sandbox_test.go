package snapshot_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/snapshot"
)

const bigSize = 100 << 20

// hostileRepo builds a repository with what an agent's tools must survive: links to
// /etc/passwd, to a planted secret by absolute path, out of the tree by .. (to where a secret
// is planted once the snapshot exists), to directories outside, a loop, a 100 MB file and a
// binary file.
func hostileRepo(t *testing.T, secretAbs string) (*gitRepo, string) {
	t.Helper()
	r := newRepo(t)
	r.write("normal.c", "int ok(void) { return 1; }\n")
	r.write("sub/file.txt", "inside\n")
	r.write("binary.dat", "\x00\x01\x02\x03 not text \x00")
	r.symlink("/etc/passwd", "passwd")
	r.symlink(secretAbs, "abs")
	r.symlink("../../outside", "up")         // tree/.. is the snapshot's directory, ../.. the snapshots directory
	r.symlink("../../../outside", "sub/up3") // the same place, from sub
	r.symlink(strings.Repeat("../", 30)+"etc/passwd", "far")
	r.symlink("../..", "dirout")
	r.symlink("/etc", "etc")
	r.symlink("b", "a")
	r.symlink("a", "b")
	r.symlink("self", "self")
	r.symlink("sub/up3", "chain") // inside, to a link that leaves
	r.symlink("sub", "linkdir")
	r.symlink("normal.c", "good") // inside, to a file inside
	f, err := os.Create(filepath.Join(r.dir, "big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(bigSize); err != nil { // zeros, sparse; git compresses them to little
		t.Fatal(err)
	}
	f.Close()
	return r, r.commit("hostile")
}

// TestSandbox is the acceptance test of Spine v2's snapshots: reading as an agent's tools
// would, with every name a model might try, no read leaves the snapshot and every output is
// bounded.
func TestSandbox(t *testing.T) {
	marker := fmt.Sprintf("SECRET-%d-do-not-leak", os.Getpid())
	secretAbs := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secretAbs, []byte(marker), 0o644); err != nil {
		t.Fatal(err)
	}
	r, commit := hostileRepo(t, secretAbs)
	var forbidden [][]byte // what no output may hold
	forbidden = append(forbidden, []byte(marker))
	if b, err := os.ReadFile("/etc/passwd"); err == nil && len(b) > 0 {
		line, _, _ := bytes.Cut(b, []byte("\n"))
		forbidden = append(forbidden, line)
	}
	forbidden = append(forbidden, []byte(`"commit"`)) // snapshot.json, beside the tree

	for _, tc := range []struct {
		name        string
		extractSize int64 // Options.MaxFileSize
		bigInTree   bool
	}{
		{"default extraction limit", 0, false},
		{"100 MB file extracted", 200 << 20, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCache(t, snapshot.Options{MaxFileSize: tc.extractSize})
			s := get(t, c, r.dir, commit)
			// Plant secrets where the escaping relative links point.
			for _, p := range []string{filepath.Join(c.Dir(), "snapshots", "outside"), filepath.Join(c.Dir(), "outside")} {
				if err := os.WriteFile(p, []byte(marker), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			lim := s.Limits()
			check := func(what string, out []byte) {
				t.Helper()
				for _, f := range forbidden {
					if bytes.Contains(out, f) {
						t.Errorf("%s returned %q, from outside the snapshot", what, f)
					}
				}
				if int64(len(out)) > lim.MaxFileSize {
					t.Errorf("%s returned %d bytes, over the %d-byte limit", what, len(out), lim.MaxFileSize)
				}
			}
			checkErr := func(what string, err error) {
				t.Helper()
				if err != nil {
					check(what+" error", []byte(err.Error()))
					if len(err.Error()) > 1024 {
						t.Errorf("%s: a %d-byte error", what, len(err.Error()))
					}
				}
			}

			rootAbs := s.Root()
			escapes := []string{
				"../x", "../snapshot.json", "/etc/passwd", "sub/../../x", "sub/../../snapshot.json", "../../outside",
				"passwd", "abs", "up", "sub/up3", "far", "dirout/outside", "dirout", "etc/passwd", "etc", "chain",
				"linkdir/up3", rootAbs + "/normal.c", secretAbs,
			}
			loops := []string{"a", "b", "self", "a/x"}
			for _, name := range escapes {
				b, err := s.ReadFile(name)
				check("ReadFile("+name+")", b)
				checkErr("ReadFile("+name+")", err)
				if !errors.Is(err, snapshot.ErrOutside) {
					t.Errorf("ReadFile(%q) = %d bytes, %v; want ErrOutside", name, len(b), err)
				}
				cont, err := s.Read(name)
				check("Read("+name+")", cont.Data)
				if !errors.Is(err, snapshot.ErrOutside) {
					t.Errorf("Read(%q): %v; want ErrOutside", name, err)
				}
				if _, err := s.Stat(name); !errors.Is(err, snapshot.ErrOutside) {
					t.Errorf("Stat(%q): %v; want ErrOutside", name, err)
				}
				if f, err := s.Open(name); !errors.Is(err, snapshot.ErrOutside) {
					if err == nil {
						b, _ := io.ReadAll(f)
						check("Open("+name+")", b)
						f.Close()
					}
					t.Errorf("Open(%q): %v; want ErrOutside", name, err)
				}
				es, err := s.ReadDir(name)
				if !errors.Is(err, snapshot.ErrOutside) {
					t.Errorf("ReadDir(%q) = %d entries, %v; want ErrOutside", name, len(es), err)
				}
				if fs.ValidPath(name) {
					b, err := fs.ReadFile(s.FS(), name)
					check("FS ReadFile("+name+")", b)
					if !errors.Is(err, snapshot.ErrOutside) {
						t.Errorf("FS ReadFile(%q): %v; want ErrOutside", name, err)
					}
				}
			}
			for _, name := range loops {
				b, err := s.ReadFile(name)
				checkErr("ReadFile("+name+")", err)
				if !errors.Is(err, syscall.ELOOP) || !strings.Contains(err.Error(), "symlink loop") {
					t.Errorf("ReadFile(%q) = %d bytes, %v; want a symlink loop error", name, len(b), err)
				}
				if _, err := s.Stat(name); !errors.Is(err, syscall.ELOOP) {
					t.Errorf("Stat(%q): %v; want ELOOP", name, err)
				}
			}
			// Links inside the tree work; links show as links.
			if b, err := s.ReadFile("good"); err != nil || string(b) != "int ok(void) { return 1; }\n" {
				t.Errorf("ReadFile(good): %q, %v", b, err)
			}
			if target, err := s.Readlink("passwd"); err != nil || target != "/etc/passwd" {
				t.Errorf("Readlink(passwd) = %q, %v; want the link's text", target, err)
			}
			if fi, err := s.Lstat("passwd"); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				t.Errorf("Lstat(passwd): %v, %v; want a symbolic link", fi, err)
			}

			// The binary file is detected.
			if cont, err := s.Read("binary.dat"); err != nil || !cont.Binary || cont.Truncated {
				t.Errorf("Read(binary.dat): binary %v truncated %v, %v; want binary", cont.Binary, cont.Truncated, err)
			}

			// The 100 MB file: left out at extraction, or read within the limit and memory.
			if !tc.bigInTree {
				_, err := s.ReadFile("big.bin")
				if !errors.Is(err, snapshot.ErrSkipped) || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "104857600 bytes, over the 67108864-byte extraction limit") {
					t.Errorf("ReadFile(big.bin) left out at extraction: %v", err)
				}
				want := []snapshot.Skipped{{Path: "big.bin", Size: bigSize, Reason: "104857600 bytes, over the 67108864-byte extraction limit"}}
				if d := cmp.Diff(want, s.Info().Skipped); d != "" {
					t.Errorf("Info.Skipped (-want +got):\n%s", d)
				}
			} else {
				if fi, err := os.Stat(filepath.Join(s.Root(), "big.bin")); err != nil || fi.Size() != bigSize {
					t.Fatalf("big.bin in the tree: %v, %v", fi, err)
				}
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				_, errWhole := s.ReadFile("big.bin")
				cont, errRead := s.Read("big.bin")
				_, errOpen := s.Open("big.bin")
				fsBytes, errFS := fs.ReadFile(s.FS(), "big.bin")
				runtime.ReadMemStats(&after)
				for what, err := range map[string]error{"ReadFile": errWhole, "Open": errOpen, "FS ReadFile": errFS} {
					checkErr(what+"(big.bin)", err)
					if !errors.Is(err, snapshot.ErrTooLarge) || !strings.Contains(err.Error(), "104857600 bytes, over the 1048576-byte read limit") {
						t.Errorf("%s(big.bin): %v; want ErrTooLarge with the sizes", what, err)
					}
				}
				check("FS ReadFile(big.bin)", fsBytes)
				check("Read(big.bin)", cont.Data)
				if errRead != nil || len(cont.Data) != int(lim.MaxFileSize) || !cont.Truncated || cont.Size != bigSize || !cont.Binary {
					t.Errorf("Read(big.bin): %d bytes, truncated %v, size %d, binary %v, %v; want the first %d bytes of %d, truncated, binary",
						len(cont.Data), cont.Truncated, cont.Size, cont.Binary, errRead, lim.MaxFileSize, bigSize)
				}
				if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 3<<20 {
					t.Errorf("reading big.bin allocated %d bytes; want little more than the 1 MiB read", alloc)
				}
			}

			// Listing and walking show links as links and never go through them.
			es, err := s.ReadDir(".")
			if err != nil {
				t.Fatal(err)
			}
			var listed []string
			for _, e := range es {
				listed = append(listed, e.Name()+" "+e.Type().String())
			}
			wantListed := []string{"a L---------", "abs L---------", "b L---------"}
			if tc.bigInTree {
				wantListed = append(wantListed, "big.bin ----------")
			}
			wantListed = append(wantListed, "binary.dat ----------", "chain L---------", "dirout L---------", "etc L---------",
				"far L---------", "good L---------", "linkdir L---------", "normal.c ----------", "passwd L---------",
				"self L---------", "sub d---------", "up L---------")
			if d := cmp.Diff(wantListed, listed); d != "" {
				t.Errorf("ReadDir(.) (-want +got):\n%s", d)
			}
			walked, err := walkAll(t, s, ".")
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range walked {
				for _, dirLink := range []string{"linkdir/", "dirout/", "etc/"} {
					if strings.HasPrefix(p[2:], dirLink) {
						t.Errorf("Walk went through the link: %s", p)
					}
				}
			}
			if n := len(walked); n != len(wantListed)+1+2 { // the root, sub/file.txt, sub/up3
				t.Errorf("Walk visited %d entries: %v", n, walked)
			}
		})
	}
}
