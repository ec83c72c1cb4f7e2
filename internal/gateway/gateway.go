package gateway

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/vulnbench/vulnbench/internal/gateway/translate"
	"github.com/vulnbench/vulnbench/internal/llm"
)

// Config configures one unit's gateway.
type Config struct {
	// Model takes the calls: the unit's metered model (the runner's meter, which checks the
	// unit's limits, reserves the run's budget, prices each call, keeps the unit's account of
	// usage and cost, and records each call in the unit's trace) over the llm stack.
	Model llm.RawModel
	// Repeat is the unit's repeat index (the cache keeps each repeat's draws apart).
	Repeat int
	// Dir is where the socket's private directory is made; default os.TempDir(). Unix socket
	// paths are short (108 bytes): keep it short.
	Dir string
	// MaxBody bounds a request body; default 32 MiB.
	MaxBody int64
}

// Gateway is a running gateway: an HTTP server on a Unix socket. Close it.
type Gateway struct {
	cfg    Config
	info   llm.Info
	dir    string
	socket string
	token  string
	srv    *http.Server
	served chan struct{}

	mu    sync.Mutex
	fault error           // the first call error that was not transient
	seen  map[string]bool // tool-call ids whose results went to the trace
	// enc writes translated requests in the provider's format (made at the first).
	encoder sync.Once
	enc     *translate.Encoder
	// issued are the tool-call ids given to the agent in translated answers, answers their count.
	issued  map[string]bool
	answers int
	renamed map[string]string // an id issued in place of the upstream's -> the upstream's
	stats   Stats
}

// Stats count what the gateway relayed, whatever the agent reports about itself. The calls'
// usage and cost are the meter's (Config.Model), the one account of them.
type Stats struct {
	Calls     int // model calls answered (from the cache too)
	Cached    int // answered from the cache
	Errors    int // calls that failed or were refused
	ToolCalls int // tool calls the model asked for
}

// Start starts a gateway for cfg.Model's provider.
func Start(cfg Config) (*Gateway, error) {
	if cfg.Model == nil {
		return nil, errors.New("gateway: no model")
	}
	if cfg.MaxBody == 0 {
		cfg.MaxBody = 32 << 20
	}
	dir, err := os.MkdirTemp(cfg.Dir, "vbgw-")
	if err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	tok := make([]byte, 16)
	_, _ = rand.Read(tok)
	g := &Gateway{cfg: cfg, info: cfg.Model.Info(), dir: dir, socket: filepath.Join(dir, "gw.sock"),
		token: "vulnbench-" + hex.EncodeToString(tok), served: make(chan struct{}), seen: map[string]bool{}, issued: map[string]bool{}, renamed: map[string]string{}}
	ln, err := net.Listen("unix", g.socket)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("gateway: %w", err)
	}
	g.srv = &http.Server{Handler: http.HandlerFunc(g.serveHTTP), ReadHeaderTimeout: 30 * time.Second}
	go func() {
		defer close(g.served)
		_ = g.srv.Serve(ln)
	}()
	return g, nil
}

// Socket is the host path of the gateway's Unix socket (sandbox.Spec.Gateway). Its directory is
// the gateway's own, mode 0700.
func (g *Gateway) Socket() string { return g.socket }

// Token is the key the agent is given: the gateway accepts it and no other, and sends the real
// one upstream. It is worthless outside this gateway.
func (g *Gateway) Token() string { return g.token }

// Info is the model the gateway serves.
func (g *Gateway) Info() llm.Info { return g.info }

// Close stops the gateway (calls in flight are cut) and removes its socket.
func (g *Gateway) Close() error {
	err := g.srv.Close()
	<-g.served
	os.RemoveAll(g.dir)
	return err
}

// Stats returns what the gateway saw so far.
func (g *Gateway) Stats() Stats {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.stats
}

// Fault is the first failed call's error: a unit limit or the run's budget (refused by the
// meter), a fatal provider error (a rejected key, an unknown model), a per-case refusal (an
// input too long), or a transient fault the stack's retries gave up on. nil when every call
// succeeded. A subject reads it (llm.Classify, errors.Is) to give the attempt its outcome.
func (g *Gateway) Fault() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.fault
}
