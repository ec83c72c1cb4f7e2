package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vulnbench/vulnbench/internal/store"
)

// asReader runs the binary as a user who cannot write the archive (nobody, when the test runs
// as root, which no permission stops).
func asReader(cmd *exec.Cmd) {
	if os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	cmd.Env = append(os.Environ(), "HOME=/tmp", "XDG_CACHE_HOME=/tmp")
}

type fileState struct {
	sum   [32]byte
	mtime time.Time
	names string
}

func stateOf(t *testing.T, db string) fileState {
	t.Helper()
	b, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(db)
	if err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(filepath.Dir(db))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return fileState{sum: sha256.Sum256(b), mtime: fi.ModTime(), names: strings.Join(names, " ")}
}

// Issue 25 finding 5: an archived result (a 0444 store in a 0555 directory) is read by score,
// report, export, serve and runs, run as a user who cannot write it: none of them migrates or
// writes anything (the file's bytes and time are unchanged, no -wal or -shm appears). A store
// whose schema is older than the binary's is refused by a read command with what to do.
func TestReadCommandsOpenArchivedStores(t *testing.T) {
	bin := buildBinary(t)
	base, err := os.MkdirTemp("", "vbro")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	exe := filepath.Join(base, "vulnbench")
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		t.Fatal(err)
	}
	archive, out := filepath.Join(base, "archive"), filepath.Join(base, "out")
	for _, d := range []string{archive, out} {
		if err := os.Mkdir(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(base, 0o755)
	os.Chmod(out, 0o777)
	os.WriteFile(filepath.Join(base, "s.jsonl"), []byte(goodSuite), 0o644)
	db := filepath.Join(archive, "v.db")
	if code, _, errOut := run(t, base, "run", "--suite", "s.jsonl", "--subject", "random", "--db", db, "--run-id", "a"); code != 0 {
		t.Fatalf("run: %d\n%s", code, errOut)
	}
	if err := os.Chmod(db, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(archive, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(archive, 0o755)
	before := stateOf(t, db)

	for _, args := range [][]string{
		{"runs", "--db", db},
		{"score", "--run", "a", "--db", db},
		{"export", "--run", "a", "--db", db, "--format", "jsonl", "--out", filepath.Join(out, "a.jsonl")},
		{"report", "--run", "a", "--db", db, "--html", filepath.Join(out, "html")},
		// Issue 31: board tried to write ("attempt to write a readonly database").
		{"board", "--db", db},
	} {
		cmd := exec.Command(exe, args...)
		cmd.Dir = out
		asReader(cmd)
		o, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("vulnbench %s on the archived store: %v\n%s", args[0], err, o)
		}
		if after := stateOf(t, db); after != before {
			t.Errorf("vulnbench %s changed the archived store: %+v, was %+v", args[0], after, before)
		}
	}
	serveArchived(t, exe, out, db)
	if after := stateOf(t, db); after != before {
		t.Errorf("vulnbench serve changed the archived store: %+v, was %+v", after, before)
	}

	// An older schema: the last migration is not recorded.
	old := filepath.Join(base, "old.db")
	st, err := store.Open(context.Background(), old)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.DB().Exec(`DELETE FROM goose_db_version WHERE version_id = (SELECT MAX(version_id) FROM goose_db_version)`); err != nil {
		t.Fatal(err)
	}
	var have int
	st.DB().QueryRow(`SELECT MAX(version_id) FROM goose_db_version`).Scan(&have)
	st.Close()
	code, _, errOut := run(t, base, "runs", "--db", old)
	if code == 0 || !strings.Contains(errOut, "schema v"+strconv.Itoa(have)+", this binary expects v"+strconv.Itoa(have+1)) {
		t.Errorf("runs on a store of an older schema: exit %d\n%s", code, errOut)
	}
}

// serveArchived starts vulnbench serve on the archived store, fetches its front page and stops it.
func serveArchived(t *testing.T, exe, dir, db string) {
	t.Helper()
	cmd := exec.Command(exe, "serve", "--db", db, "--addr", "127.0.0.1:0")
	cmd.Dir = dir
	asReader(cmd)
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}()
	line, err := bufio.NewReader(pipe).ReadString('\n')
	i := strings.Index(line, "http://")
	if err != nil || i < 0 {
		t.Fatalf("serve on the archived store: %q, %v\n%s", line, err, errOut.String())
	}
	url := strings.TrimSuffix(strings.Fields(line[i:])[0], "/") + "/"
	// The front page, and a run's page (scored by serve's child process, a read command too).
	for _, path := range []string{"", "runs/a"} {
		resp, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || len(body) == 0 {
			t.Errorf("serve on the archived store: GET /%s %d\n%s\n%s", path, resp.StatusCode, body, errOut.String())
		}
	}
}
