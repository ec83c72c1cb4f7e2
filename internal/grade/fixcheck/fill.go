package fixcheck

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"

	"github.com/vulnbench/vulnbench/internal/grade"
	"github.com/vulnbench/vulnbench/internal/store"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Store is what Fill reads and writes of a store: a run's cases and scored verdicts, and the
// grades stored with its attempts.
type Store interface {
	CasesOfKind(ctx context.Context, runID string, kind suite.Kind, fn func(*suite.Case) error) error
	Verdicts(ctx context.Context, runID string, fn func(verdict.Verdict) error) error
	Grades(ctx context.Context, runID, part, version string, fn func(store.Grade) error) error
	PutGrades(ctx context.Context, runID string, gs []store.Grade) error
}

// Filled says what Fill did.
type Filled struct {
	Proposed int // scored verdicts proposing a fix
	Stored   int // of them, checked before (their check was stored)
	Checked  int // checked now and stored
}

// Fill checks the fix proposed by each scored verdict of a run's AppSecBench cases whose check
// (of grade.FixCheckVersion) is not stored yet, workers at once (0: one per CPU: the scanners
// are CPU-bound), and stores each check with its attempt as soon as it is made, so that a
// killed Fill loses only the checks in flight and the next one makes only those. done, when
// set, is told after each check.
func Fill(ctx context.Context, st Store, runID string, fc grade.FixChecker, workers int, done func(checked, total int)) (Filled, error) {
	items, err := proposed(ctx, st, runID)
	if err != nil {
		return Filled{}, err
	}
	f := Filled{Proposed: len(items)}
	have := map[[3]any]bool{}
	if err := st.Grades(ctx, runID, grade.FixCheckPart, grade.FixCheckVersion, func(g store.Grade) error {
		have[[3]any{g.CaseID, g.Repeat, g.Attempt}] = true
		return nil
	}); err != nil {
		return Filled{}, err
	}
	todo := items[:0:0]
	for _, it := range items {
		if have[[3]any{it.Vul.CaseID, it.Vul.Repeat, it.Vul.Attempt}] {
			f.Stored++
			continue
		}
		todo = append(todo, it)
	}
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	var mu sync.Mutex
	err = grade.Each(ctx, len(todo), workers, func(ctx context.Context, i int) error {
		it := todo[i]
		res, err := json.Marshal(fc.CheckFix(ctx, it))
		if err != nil {
			return err
		}
		if ctx.Err() != nil { // a check cut short says nothing of the fix: not stored
			return ctx.Err()
		}
		g := store.Grade{CaseID: it.Vul.CaseID, Repeat: it.Vul.Repeat, Attempt: it.Vul.Attempt,
			Part: grade.FixCheckPart, Version: grade.FixCheckVersion, Result: res}
		if err := st.PutGrades(ctx, runID, []store.Grade{g}); err != nil {
			return err
		}
		mu.Lock()
		f.Checked++
		n := f.Checked
		mu.Unlock()
		if done != nil {
			done(n, len(todo))
		}
		return nil
	})
	if err != nil {
		return f, fmt.Errorf("fix checks of run %s: %w", runID, err)
	}
	return f, nil
}

// proposed is the items of a run whose scored verdict proposes a fix (grade.ProposesFix), one
// per verdict (a case's repeats apart), with their record and its two snippets.
func proposed(ctx context.Context, st Store, runID string) ([]*grade.Item, error) {
	type pair struct {
		rec         *suite.Case // the vul case, carrying the record
		vul, secure string
	}
	pairs := map[string]*pair{}
	byVul := map[string]*pair{}
	err := st.CasesOfKind(ctx, runID, suite.KindAppSec, func(c *suite.Case) error {
		key := c.Pair
		if key == "" {
			key = c.ID
		}
		p := pairs[key]
		if p == nil {
			p = &pair{}
			pairs[key] = p
		}
		if c.Label == suite.Vul {
			p.rec, p.vul = c, c.Code
			byVul[c.ID] = p
		} else {
			p.secure = c.Code
		}
		return nil
	})
	if err != nil || len(byVul) == 0 {
		return nil, err
	}
	var items []*grade.Item
	records := map[string]*grade.Item{} // the record of each vul case, decoded once
	err = st.Verdicts(ctx, runID, func(v verdict.Verdict) error {
		p := byVul[v.CaseID]
		if p == nil {
			return nil
		}
		base := records[v.CaseID]
		if base == nil {
			rec, err := grade.RecordOf(p.rec)
			if err != nil {
				return nil // not graded on the rubric (the report says so)
			}
			base = &grade.Item{Record: rec, VulCode: p.vul, SecureCode: p.secure}
			records[v.CaseID] = base
		}
		it := *base
		it.Vul = &v
		if grade.ProposesFix(&it) {
			items = append(items, &it)
		}
		return nil
	})
	return items, err
}
