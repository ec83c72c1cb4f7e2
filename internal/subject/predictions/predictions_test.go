package predictions

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
)

func write(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "p")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReplaysByIDAndByIdx(t *testing.T) {
	ctx := context.Background()
	s, err := Load(write(t, `{"case_id":"a","label":"vul","score":0.75}`+"\n"), 0)
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.Assess(ctx, subject.Unit{Case: &suite.Case{ID: "a"}, Repeat: 0}, subject.NewEnv(subject.EnvOptions{}))
	if err != nil || v.Label != suite.Vul || v.Score == nil || *v.Score != 0.75 {
		t.Errorf("by id: %+v, %v", v, err)
	}
	if _, err := s.Assess(ctx, subject.Unit{Case: &suite.Case{ID: "b"}, Repeat: 0}, subject.NewEnv(subject.EnvOptions{})); err == nil || !strings.Contains(err.Error(), "no prediction for case b") {
		t.Errorf("missing prediction: %v", err)
	}

	tsv, err := Load(write(t, "12\t0\t0.2\n"), 0)
	if err != nil {
		t.Fatal(err)
	}
	v, err = tsv.Assess(ctx, subject.Unit{Case: &suite.Case{ID: "primevul-12", Source: map[string]any{"idx": float64(12)}}, Repeat: 0}, subject.NewEnv(subject.EnvOptions{}))
	if err != nil || v.Label != suite.Ben || *v.Score != 0.2 {
		t.Errorf("by idx: %+v, %v", v, err)
	}
}

func TestBadFileIsRefusedWhole(t *testing.T) {
	_, err := Load(write(t, `{"case_id":"a","label":"vul"}`+"\n"+`{"case_id":"b","label":"maybe"}`+"\n"), 0)
	if err == nil || !strings.Contains(err.Error(), ":2:") {
		t.Errorf("err = %v, want the problem on line 2", err)
	}
}

func TestDelayHonoursCancellation(t *testing.T) {
	s, err := Load(write(t, `{"case_id":"a","label":"vul"}`+"\n"), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Assess(ctx, subject.Unit{Case: &suite.Case{ID: "a"}, Repeat: 0}, subject.NewEnv(subject.EnvOptions{})); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want the cancellation at once", err)
	}
}
