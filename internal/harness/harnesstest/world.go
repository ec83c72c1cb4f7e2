package harnesstest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vulnbench/vulnbench/internal/gittest"
	"github.com/vulnbench/vulnbench/internal/store"
)

// world is one battery run's host: the repository, the suite, the store, and what no agent
// may see.
type world struct {
	dir, tmp, repos, suite, db, snapshots string
	marker, secret                        string // a marker file (0644) and a root-only file (0600) outside the snapshot
	port, hostPort                        int    // a loopback port and a port on every address, serving markers
	hostIPs                               []string
	tag                                   string   // in the command line of the process a probe leaves running
	forbidden                             []string // what nothing the battery inspects may hold
}

func newWorld(t *testing.T) *world {
	t.Helper()
	tag := fmt.Sprintf("%d-%d", os.Getpid(), time.Now().UnixNano())
	w := &world{dir: t.TempDir(), tag: "vbleft" + strings.ReplaceAll(tag, "-", "x")}
	w.tmp = filepath.Join(w.dir, "tmp")
	if err := os.Mkdir(w.tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	// The sandbox's and the gateway's host folders go here: what is left is seen.
	t.Setenv("TMPDIR", w.tmp)
	w.marker = filepath.Join(w.dir, "marker.txt")
	w.secret = filepath.Join(w.dir, "root-only", "SECRET")
	w.db = filepath.Join(w.dir, "vulnbench.db")
	w.suite = filepath.Join(w.dir, "suite.jsonl")
	w.repos = filepath.Join(w.dir, "repos")
	w.snapshots = filepath.Join(w.dir, "snapshots")
	write(t, w.marker, "MARKER-"+tag, 0o644)
	write(t, w.secret, "ROOT-ONLY-"+tag, 0o600)
	if err := os.Chmod(filepath.Dir(w.secret), 0o700); err != nil {
		t.Fatal(err)
	}
	key := "sk-real-" + tag
	t.Setenv("ANTHROPIC_API_KEY", key)
	t.Setenv("OPENAI_API_KEY", key)
	t.Setenv("VULNBENCH_BATTERY_SECRET", "ENV-"+tag) // in vulnbench's /proc/self/environ
	w.port = serve(t, "127.0.0.1:0", "PORT-"+tag)
	w.hostPort = serve(t, "0.0.0.0:0", "HOSTADDR-"+tag)
	w.hostIPs = hostIPs()
	st, err := store.Open(context.Background(), w.db)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutResponse(context.Background(), "k", "openai", "m", []byte("STORE-"+tag)); err != nil {
		t.Fatal(err)
	}
	st.Close()
	w.forbidden = []string{"MARKER-" + tag, "ROOT-ONLY-" + tag, key, "ENV-" + tag, "PORT-" + tag, "HOSTADDR-" + tag}
	if p := os.Getenv("PATH"); len(p) > 40 {
		w.forbidden = append(w.forbidden, "PATH="+p) // vulnbench's own, in its /proc/self/environ
	}
	w.forbidden = append(w.forbidden, "STORE-"+tag) // last: the store's file holds it (checkStored)
	return w
}

func write(t *testing.T, p, s string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), mode); err != nil {
		t.Fatal(err)
	}
}

// serve answers every request on addr with text; it returns the port.
func serve(t *testing.T, addr, text string) int {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) { fmt.Fprint(rw, text) }), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

// hostIPs are the host's addresses but loopback: the sandbox must reach none.
func hostIPs() []string {
	var out []string
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			out = append(out, n.IP.String())
		}
	}
	return out
}

// writeSuite writes the repository (a C file, and a link out to the marker) and one jit case
// per unit, its code marked with the unit's id.
func (w *world) writeSuite(t *testing.T, units []unit) {
	t.Helper()
	dir := filepath.Join(w.repos, "acme+app")
	gittest.WriteFiles(t, dir, map[string]string{"src/parse.c": "int parse(char *s) { char b[8]; int i = 0; while (*s) b[i++] = *s++; return b[0]; }\n"})
	if err := os.Symlink(w.marker, filepath.Join(dir, "leak")); err != nil {
		t.Fatal(err)
	}
	commit := gittest.Repo(t, dir, nil)
	var b strings.Builder
	for _, u := range units {
		code := "/* battery-case:" + u.id + " */ int parse(char *s) { char b[8]; int i = 0; while (*s) b[i++] = *s++; return b[0]; }"
		fmt.Fprintf(&b, `{"id":%q,"kind":"jit","label":"vul","language":"c","repo":{"url":"https://github.com/acme/app","commit":%q},"target":{"file":"src/parse.c","function":"parse","line":1},"code":%q}`+"\n",
			u.id, commit, code)
	}
	write(t, w.suite, b.String(), 0o644)
}
