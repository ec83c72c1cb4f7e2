// Package pgtest gives tests a real, throwaway Postgres: one cluster per test binary, started on
// first use from Debian's postgresql-15 binaries (initdb and postgres run as the postgres user
// when the test runs as root, as they refuse root), listening on a Unix socket only, with fsync
// off; and a fresh database per test.
//
// In any package's tests:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) } // stops the cluster and removes its files at the end
//
//	func TestSomething(t *testing.T) {
//		dsn := pgtest.DSN(t) // postgres:///t3_testsomething?host=/tmp/vbpg123&user=postgres&sslmode=disable
//		st, err := store.Open(ctx, dsn)
//		...
//	}
//
// The DSN works from child processes too, e.g. a CLI test running the real binary:
//
//	cmd := exec.Command(bin, "run", "--db", pgtest.DSN(t), "--suite", suite, "--subject", "random")
//
// A package that has its own TestMain calls Stop after m.Run instead of Main:
//
//	code := m.Run()
//	if err := pgtest.Stop(); err != nil && code == 0 { code = 1 }
//	os.Exit(code)
//
// Without either, the cluster still stops when the test binary exits (it is started with a
// parent-death signal), but its temporary directory stays.
//
// When the Postgres binaries are missing, DSN skips the test with a message saying to run
// `make test` (which installs them); with the environment variable CI set, or
// VULNBENCH_REQUIRE_POSTGRES=1, it fails instead. VULNBENCH_PGBIN names another directory holding
// initdb and postgres.
package pgtest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// DefaultBinDir is where Debian's postgresql-15 puts initdb and postgres.
const DefaultBinDir = "/usr/lib/postgresql/15/bin"

var (
	mu       sync.Mutex
	running  *cluster
	startErr error
	seq      int
)

// errMissing says the Postgres binaries are not installed.
var errMissing = errors.New("postgres binaries missing")

// BinDir returns the directory the binaries are taken from.
func BinDir() string {
	if d := os.Getenv("VULNBENCH_PGBIN"); d != "" {
		return d
	}
	return DefaultBinDir
}

// Required reports whether a missing Postgres fails tests rather than skipping them.
func Required() bool {
	return os.Getenv("CI") != "" || os.Getenv("VULNBENCH_REQUIRE_POSTGRES") == "1"
}

// DSN returns the URL of a new, empty database on the test binary's cluster, starting the cluster
// on first use. The database is dropped when t ends (open connections to it are closed).
func DSN(t testing.TB) string {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	c, err := start()
	if errors.Is(err, errMissing) {
		msg := fmt.Sprintf("pgtest: %v: run `make test`, which installs postgresql-15 (scripts/install-deps.sh), or set VULNBENCH_PGBIN to a directory holding initdb and postgres", err)
		if Required() {
			t.Fatal(msg + " (Postgres is required here: CI or VULNBENCH_REQUIRE_POSTGRES=1 is set)")
		}
		t.Skip(msg)
	}
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	seq++
	name := dbName(seq, t.Name())
	ctx := context.Background()
	if _, err := c.admin.Exec(ctx, `CREATE DATABASE `+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatalf("pgtest: create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		if running != c {
			return // stopped already
		}
		if _, err := c.admin.Exec(ctx, `DROP DATABASE IF EXISTS `+pgx.Identifier{name}.Sanitize()+` WITH (FORCE)`); err != nil {
			t.Errorf("pgtest: drop database %s: %v", name, err)
		}
	})
	return c.dsn(name)
}

// Main runs the tests, stops the cluster if one was started, and exits with the tests' code: call
// it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	if err := Stop(); err != nil && code == 0 {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

// Stop stops the cluster, if one was started, and removes its files.
func Stop() error {
	mu.Lock()
	defer mu.Unlock()
	c := running
	running, startErr = nil, nil
	if c == nil {
		return nil
	}
	return c.stop()
}

// dbName returns a database name for the n-th database of a test: at most 63 bytes of
// [a-z0-9_].
func dbName(n int, test string) string {
	var b strings.Builder
	b.WriteString("t" + strconv.Itoa(n) + "_")
	for _, r := range strings.ToLower(test) {
		if b.Len() >= 63 {
			break
		}
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

type cluster struct {
	base   string // holds data/ and the socket
	bin    string
	cred   *syscall.Credential
	cmd    *exec.Cmd
	exited chan struct{}
	log    *tail
	admin  *pgx.Conn
}

func (c *cluster) dsn(db string) string {
	return "postgres:///" + db + "?host=" + c.base + "&user=postgres&sslmode=disable"
}

// start returns the running cluster, starting it if needed; mu is held.
func start() (*cluster, error) {
	if running != nil || startErr != nil {
		return running, startErr
	}
	running, startErr = startCluster()
	return running, startErr
}

func startCluster() (*cluster, error) {
	bin := BinDir()
	for _, name := range []string{"initdb", "postgres"} {
		if _, err := os.Stat(filepath.Join(bin, name)); err != nil {
			return nil, fmt.Errorf("%w: no %s in %s", errMissing, name, bin)
		}
	}
	cred, err := credential()
	if err != nil {
		return nil, err
	}
	// The socket's path must stay under about 100 bytes: use a short temporary directory, and as
	// root one the postgres user can reach.
	tmp := os.TempDir()
	if len(tmp) > 40 || cred != nil {
		tmp = "/tmp"
	}
	base, err := os.MkdirTemp(tmp, "vbpg")
	if err != nil {
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	c := &cluster{base: base, bin: bin, cred: cred, log: &tail{}}
	fail := func(err error) (*cluster, error) {
		os.RemoveAll(base)
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	if cred != nil {
		if err := os.Chown(base, int(cred.Uid), int(cred.Gid)); err != nil {
			return fail(err)
		}
	}
	data := filepath.Join(base, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "--encoding=UTF8",
		"--no-sync", "--no-instructions",
		// Not the C locale: the store must sort text by bytes whatever the server's collation.
		"--locale-provider=icu", "--icu-locale=en-US", "--locale=C.UTF-8")
	initdb.Dir = base
	initdb.SysProcAttr = sysProcAttr(cred)
	if out, err := initdb.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("initdb: %w\n%s", err, out))
	}
	if err := c.launch(); err != nil {
		return fail(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if c.admin, err = pgx.Connect(ctx, c.dsn("postgres")); err != nil {
		c.cmd.Process.Kill()
		<-c.exited
		return fail(fmt.Errorf("connect: %w", err))
	}
	return c, nil
}

// launch starts the server on the cluster's data directory and waits until it accepts
// connections.
func (c *cluster) launch() error {
	c.exited = make(chan struct{})
	c.cmd = exec.Command(filepath.Join(c.bin, "postgres"), "-D", filepath.Join(c.base, "data"), "-k", c.base,
		"-c", "listen_addresses=", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "shared_buffers=32MB", "-c", "max_connections=200")
	c.cmd.Dir = c.base
	c.cmd.SysProcAttr = sysProcAttr(c.cred)
	stderr, err := c.cmd.StderrPipe()
	if err != nil {
		return err
	}
	exited := c.exited
	if err := startOnOwnThread(c.cmd, exited); err != nil {
		return err
	}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		signalled := false
		for sc.Scan() {
			line := sc.Text()
			c.log.add(line)
			if !signalled && strings.Contains(line, "database system is ready to accept connections") {
				close(ready)
				signalled = true
			}
		}
		io.Copy(io.Discard, stderr)
		c.cmd.Wait()
		close(exited)
	}()
	timeout := time.NewTimer(60 * time.Second)
	defer timeout.Stop()
	select {
	case <-ready:
		return nil
	case <-exited:
		return fmt.Errorf("postgres exited: %s", c.log)
	case <-timeout.C:
		c.cmd.Process.Kill()
		<-exited
		return fmt.Errorf("postgres not ready after 60 s: %s", c.log)
	}
}

func (c *cluster) stop() error {
	c.admin.Close(context.Background())
	c.cmd.Process.Signal(syscall.SIGINT) // fast shutdown
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	select {
	case <-c.exited:
	case <-timeout.C:
		c.cmd.Process.Kill()
		<-c.exited
	}
	if err := os.RemoveAll(c.base); err != nil {
		return fmt.Errorf("pgtest: remove %s: %w", c.base, err)
	}
	return nil
}

// credential returns the postgres user's when running as root (initdb and postgres refuse root),
// else nil: they run as the current user.
func credential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("%w: running as root needs the postgres user, which the postgresql-15 package creates: %v", errMissing, err)
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("postgres user: %w", err)
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("postgres user: %w", err)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// tail keeps the last lines of the server's log, for error messages.
type tail struct {
	mu    sync.Mutex
	lines []string
}

func (t *tail) add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, line)
	if len(t.lines) > 50 {
		t.lines = t.lines[len(t.lines)-50:]
	}
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, "\n")
}

// startOnOwnThread starts cmd from an OS thread kept for it until ended is closed: cmd's
// parent-death signal is its starting thread's, and Go ends a thread whose goroutine exits
// locked to it (the sandbox starts each process so), which would stop the cluster mid-test
// if it had been started from that thread.
func startOnOwnThread(cmd *exec.Cmd, ended <-chan struct{}) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		err := cmd.Start()
		errc <- err
		if err == nil {
			<-ended
		}
	}()
	return <-errc
}
