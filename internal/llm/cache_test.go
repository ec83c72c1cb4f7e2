package llm_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/vulnbench/vulnbench/internal/llm"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/store"
)

// TestCacheControls: a model whose answer changes on every call, behind caches sharing one
// store. The default namespace finds what it stored; another tag never sees those answers;
// Refresh asks again and its answer replaces the stored one for later readers.
func TestCacheControls(t *testing.T) {
	var n atomic.Int64
	srv := llmtest.NewOpenAI(func(llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: fmt.Sprintf("answer %d", n.Add(1))}
	})
	defer srv.Close()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	model := llm.NewOpenAI("m", srv.BaseURL(), "k", nil)
	complete := func(o llm.CacheOptions) llm.Response {
		t.Helper()
		r, err := llm.WithCache(model, st, o).Complete(context.Background(), ask("a"))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	steps := []struct {
		name   string
		opts   llm.CacheOptions
		text   string
		cached bool
	}{
		{"first call", llm.CacheOptions{}, "answer 1", false},
		{"same namespace: the stored answer", llm.CacheOptions{}, "answer 1", true},
		{"a tag: never the untagged answer", llm.CacheOptions{Namespace: "v2"}, "answer 2", false},
		{"the tag again: its own answer", llm.CacheOptions{Namespace: "v2"}, "answer 2", true},
		{"no-cache: asked again", llm.CacheOptions{Refresh: true}, "answer 3", false},
		{"after no-cache: the new answer", llm.CacheOptions{}, "answer 3", true},
		{"the tag kept its own", llm.CacheOptions{Namespace: "v2"}, "answer 2", true},
	}
	for _, s := range steps {
		r := complete(s.opts)
		if r.Text != s.text || r.Cached != s.cached {
			t.Errorf("%s: got %q cached=%v, want %q cached=%v", s.name, r.Text, r.Cached, s.text, s.cached)
		}
	}
	if got := srv.Requests(); got != 3 {
		t.Errorf("the server saw %d requests, want 3", got)
	}
}

// TestCacheKeyNamespace: the default namespace keys as before namespaces existed (caches stored
// then are still found); a tag makes another key.
func TestCacheKeyNamespace(t *testing.T) {
	info := llm.Info{Provider: "openai", Model: "m"}
	req := ask("a")
	old, err := json.Marshal(struct {
		V    int         `json:"v"`
		Info llm.Info    `json:"info"`
		Req  llm.Request `json:"req"`
	}{1, info, req})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(old)
	def, _ := llm.CacheKey("", info, req)
	tagged, _ := llm.CacheKey("v2", info, req)
	other, _ := llm.CacheKey("v3", info, req)
	if def != hex.EncodeToString(sum[:]) {
		t.Errorf("default namespace key %s is not the key caches were stored under before namespaces", def)
	}
	if tagged == def || tagged == other {
		t.Errorf("keys default %s, v2 %s, v3 %s: each namespace needs its own", def, tagged, other)
	}
	raw := llm.RawRequest{API: llm.OpenAIChat, Body: []byte(`{"model":"m","messages":[]}`)}
	r1, err1 := llm.RawCacheKey("", info, raw)
	r2, err2 := llm.RawCacheKey("v2", info, raw)
	if err1 != nil || err2 != nil || r1 == r2 {
		t.Errorf("raw keys %s %s (%v, %v): a tag must change the raw key too", r1, r2, err1, err2)
	}
}
