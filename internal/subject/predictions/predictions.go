// Package predictions replays verdicts made elsewhere: a vulnbench predictions JSONL file or
// PrimeVul's tab-separated predictions.txt.
package predictions

import (
	"context"
	"errors"
	"fmt"
	"github.com/vulnbench/vulnbench/internal/lineerr"
	"os"
	"time"

	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Subject answers each case with the prediction the file holds for it.
type Subject struct {
	path  string
	byID  map[unitKey]verdict.Verdict
	byIdx map[string]verdict.Verdict
	delay time.Duration
}

// unitKey is one (case, repeat) of a vulnbench predictions file.
type unitKey struct {
	id     string
	repeat int
}

// Load reads every prediction of path. A malformed file is refused whole, with every problem
// as FILE:LINE: message. delay makes every answer wait (for tests of interruption and resume).
// rd is how the file is read (nil: strictly).
func Load(path string, delay time.Duration, rd *lineerr.Reading) (*Subject, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("predictions: %w", err)
	}
	defer f.Close()
	s := &Subject{path: path, byID: map[unitKey]verdict.Verdict{}, byIdx: map[string]verdict.Verdict{}, delay: delay}
	problems := verdict.ReadPredictions(f, path, rd, func(p verdict.Prediction, _ int) error {
		if p.CaseID != "" {
			s.byID[unitKey{p.CaseID, p.Repeat}] = p.Verdict
		} else {
			s.byIdx[p.Idx] = p.Verdict
		}
		return nil
	})
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	return s, nil
}

// Version of the predictions subject: how a file's lines become verdicts. 3: each repeat is
// answered by its own line (2 answered every repeat with the case's last line).
const Version = "3"

// Config is the predictions subject's configuration.
type Config struct {
	File  string        `json:"file"`
	Delay time.Duration `json:"delay,omitempty"` // tests only
}

// Validate implements subject.Config.
func (c Config) Validate() error {
	if c.File == "" {
		return errors.New("subject predictions needs a file: predictions:FILE")
	}
	return nil
}

// Describe is what the run's manifest records beyond the config.
func (s *Subject) Describe() map[string]any {
	return map[string]any{"file": s.path, "predictions": len(s.byID) + len(s.byIdx)}
}

// Assess implements subject.Subject. The file's line for the unit's repeat answers it, the whole
// verdict as the file has it (findings, vex, appsec and all); repeat 0 answers every repeat the
// file has no line for.
func (s *Subject) Assess(ctx context.Context, u subject.Unit, _ *subject.Env) (verdict.Verdict, error) {
	c := u.Case
	if s.delay > 0 {
		t := time.NewTimer(s.delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return verdict.Verdict{}, ctx.Err()
		case <-t.C:
		}
	}
	if v, ok := s.byID[unitKey{c.ID, u.Repeat}]; ok {
		return v, nil
	}
	if v, ok := s.byID[unitKey{c.ID, 0}]; ok {
		return v, nil
	}
	if idx, ok := c.SourceIdx(); ok {
		if v, ok := s.byIdx[idx]; ok {
			return v, nil
		}
	}
	return verdict.Verdict{}, fmt.Errorf("%s has no prediction for case %s", s.path, c.ID)
}
