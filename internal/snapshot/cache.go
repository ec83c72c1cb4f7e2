package snapshot

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/vulnbench/vulnbench/internal/sandbox"
)

// Options configure a Cache. Zero fields take the defaults; a negative limit means none.
type Options struct {
	// Limits are the read limits of the handles Get returns.
	Limits Limits
	// MaxFileSize leaves larger files out of a snapshot (listed in Info.Skipped; reading one
	// says so). It is part of the cache key. Default 64 MiB.
	MaxFileSize int64
	// MaxFiles and MaxBytes refuse a commit with more files, or more bytes of files (after
	// MaxFileSize), with ErrTooBig. Defaults 1,000,000 files and 16 GiB.
	MaxFiles int
	MaxBytes int64
	// Git is the git program. Default "git" (from the PATH of git's own environment,
	// /usr/local/bin:/usr/bin:/bin).
	Git string
	// Sandbox runs git: with a bubblewrap sandbox, git sees only the repository's view (see
	// gitView) read-only, and no network. nil: git runs on the host (sandbox.ModeNone), with
	// the view, the minimal environment and nothing of the repository's configuration all the
	// same.
	Sandbox *sandbox.Sandbox
}

// Default extraction limits.
const (
	DefaultExtractMaxFileSize = 64 << 20
	DefaultExtractMaxFiles    = 1_000_000
	DefaultExtractMaxBytes    = 16 << 30
)

// keyVersion changes whenever extraction changes what a snapshot holds. 2: blobs straight
// from the object store (1 was git archive's output: export-subst, export-ignore and filters
// applied; a v1 snapshot is never used by v2, and RemoveAll deletes it).
const keyVersion = 2

// Cache materialises snapshots under a directory and hands out handles on them. It is safe for
// concurrent use, and several processes may share its directory.
type Cache struct {
	dir  string  // absolute
	opts Options // defaults filled in
	sb   *sandbox.Sandbox

	mu      sync.Mutex
	flights map[flightKey]*flight
}

type flightKey struct{ repo, commit string }

// flight is one materialisation, shared by the Gets that ask for it while it runs; kept
// afterwards (a memo) when the commit was a full commit id, which cannot move.
type flight struct {
	done  chan struct{}
	dir   string
	built bool
	err   error
}

// DefaultDir is the cache directory used unless one is given: the user cache directory's
// vulnbench (snapshots go to its snapshots/ subdirectory, the code graph's indexes to codegraph/).
func DefaultDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no user cache directory (set --cache or XDG_CACHE_HOME): %w", err)
	}
	return filepath.Join(d, "vulnbench"), nil
}

// NewCache returns a cache keeping its snapshots under dir/snapshots.
func NewCache(dir string, opts Options) (*Cache, error) {
	if dir == "" {
		return nil, errors.New("snapshot cache: no directory given (use snapshot.DefaultDir)")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("snapshot cache %s: %w", dir, err)
	}
	c := &Cache{dir: abs, opts: opts.withDefaults(), sb: opts.Sandbox, flights: map[flightKey]*flight{}}
	if c.sb == nil {
		if c.sb, err = sandbox.New(context.Background(), sandbox.Options{Mode: sandbox.ModeNone, NoProcCap: true}); err != nil {
			return nil, fmt.Errorf("snapshot cache %s: %w", dir, err)
		}
	}
	return c, nil
}

// withDefaults fills in the zero fields of o, as Limits.withDefaults does for the read limits.
func (o Options) withDefaults() Options {
	if o.MaxFileSize == 0 {
		o.MaxFileSize = DefaultExtractMaxFileSize
	}
	if o.MaxFiles == 0 {
		o.MaxFiles = DefaultExtractMaxFiles
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = DefaultExtractMaxBytes
	}
	if o.Git == "" {
		o.Git = "git"
	}
	o.Limits = o.Limits.withDefaults()
	return o
}

// Dir is the cache's directory.
func (c *Cache) Dir() string { return c.dir }

// Get returns a handle on the snapshot of the repository at repoDir (a clone or a bare
// repository) at commit (a commit id, or any revision git resolves), materialising it first
// unless this or another process did. Concurrent Gets of one snapshot materialise it once and
// share it. The handle has the cache's Limits; close it when done.
//
// Errors name the repository and the commit and match ErrNoRepository (no such directory),
// ErrNotRepository, ErrNoCommit (say, a shallow clone), ErrMissingObjects (a partial or damaged
// clone) or ErrTooBig; a cancelled ctx gives its error.
func (c *Cache) Get(ctx context.Context, repoDir, commit string) (*Snapshot, error) {
	abs, err := filepath.Abs(repoDir)
	if err != nil {
		return nil, fmt.Errorf("repository %s: %w", repoDir, err)
	}
	key := flightKey{abs, commit}
	for retried := false; ; {
		c.mu.Lock()
		f, ok := c.flights[key]
		if !ok {
			f = &flight{done: make(chan struct{})}
			c.flights[key] = f
		}
		c.mu.Unlock()
		if !ok { // this Get materialises
			f.dir, f.built, f.err = c.materialise(ctx, abs, commit)
			if f.err != nil || !fullID(commit) {
				c.forget(key, f)
			}
			close(f.done)
			if f.err != nil {
				return nil, f.err
			}
			s, err := OpenDir(f.dir, c.opts.Limits)
			if err != nil {
				return nil, err
			}
			s.built = f.built
			return s, nil
		}
		select {
		case <-f.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if f.err != nil {
			if (errors.Is(f.err, context.Canceled) || errors.Is(f.err, context.DeadlineExceeded)) && ctx.Err() == nil {
				continue // the Get that ran it gave up; this one has not
			}
			return nil, f.err
		}
		s, err := OpenDir(f.dir, c.opts.Limits)
		if err != nil && errors.Is(err, fs.ErrNotExist) && !retried {
			c.forget(key, f) // removed from the disk since: materialise it again
			retried = true
			continue
		}
		return s, err
	}
}

func (c *Cache) forget(key flightKey, f *flight) {
	c.mu.Lock()
	if c.flights[key] == f {
		delete(c.flights, key)
	}
	c.mu.Unlock()
}

// fullID reports whether rev is a full SHA-1 or SHA-256 commit id (which names one commit for
// good, unlike a branch).
func fullID(rev string) bool {
	if len(rev) != 40 && len(rev) != 64 {
		return false
	}
	_, err := hex.DecodeString(rev)
	return err == nil
}

// Key is the name of a snapshot's directory under CACHE/snapshots: a hash of keyVersion, the
// repository's git directory, the commit id and the extraction file size limit.
func Key(gitDir, commit string, maxFileSize int64) string {
	h := sha256.Sum256([]byte("vulnbench snapshot\x00" + strconv.Itoa(keyVersion) + "\x00" + gitDir + "\x00" + commit + "\x00" + strconv.FormatInt(maxFileSize, 10)))
	return hex.EncodeToString(h[:16])
}

// complete reports whether dir is a published snapshot.
func complete(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, infoFile))
	return err == nil
}

// materialise returns the snapshot directory of repoDir at rev, extracting it when it is not
// in the cache yet; built says this call extracted it.
func (c *Cache) materialise(ctx context.Context, repoDir, rev string) (dir string, built bool, err error) {
	r, err := c.resolve(ctx, repoDir, rev)
	if err != nil {
		return "", false, err
	}
	snaps := filepath.Join(c.dir, "snapshots")
	key := Key(r.gitDir, r.commit, c.opts.MaxFileSize)
	final := filepath.Join(snaps, key)
	if complete(final) {
		return final, false, nil
	}
	if err := os.MkdirAll(snaps, 0o755); err != nil {
		return "", false, fmt.Errorf("snapshot cache %s: %w", c.dir, err)
	}
	// One process extracts a snapshot; the others wait for it here, then find it complete.
	unlock, held, err := lockFile(ctx, final+".lock")
	if err != nil {
		return "", false, fmt.Errorf("snapshot of %s at %s: %w", r.dir, r.commit, err)
	}
	defer unlock()
	if complete(final) {
		return final, false, nil
	}
	if held { // what a process that died while extracting left behind
		stale, _ := filepath.Glob(filepath.Join(snaps, ".tmp-"+key+"-*"))
		for _, d := range stale {
			_ = RemoveAll(d)
		}
	}
	tmp, err := os.MkdirTemp(snaps, ".tmp-"+key+"-")
	if err != nil {
		return "", false, fmt.Errorf("snapshot cache %s: %w", c.dir, err)
	}
	if err := c.extract(ctx, r, tmp); err != nil {
		_ = RemoveAll(tmp)
		return "", false, err
	}
	if err := os.Rename(tmp, final); err != nil {
		_ = RemoveAll(tmp)
		if complete(final) { // another process published it first (no lock on this system)
			return final, false, nil
		}
		return "", false, fmt.Errorf("publish the snapshot of %s at %s in %s: %w", r.dir, r.commit, c.dir, err)
	}
	return final, true, nil
}

func jsonIndent(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", infoFile, err)
	}
	return append(b, '\n'), nil
}

// RemoveAll removes a snapshot directory (or the whole cache), making its read-only
// directories writable first, which os.RemoveAll needs unless run as root.
func RemoveAll(dir string) error {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o755)
		}
		return nil
	})
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove %s: %w", dir, err)
	}
	return nil
}
