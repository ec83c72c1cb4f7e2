package vexmine

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/osv-scalibr/semantic"
)

// verdictOf is what the advisories say of one bump.
type verdictOf struct {
	fixed []fixedVuln
	drops []dropped
}

type fixedVuln struct {
	key  string
	recs []*record
}

type dropped struct {
	vulns  []string
	reason Reason
	detail string
}

// evaluate sorts a bump's vulnerabilities: fixed (the old version affected by a record, the new
// by none), still affected, withdrawn; or the bump is a downgrade or has a version no order reads.
func evaluate(b *Bump, recs []*record) verdictOf {
	var v verdictOf
	ov, err1 := semantic.Parse(strings.TrimPrefix(b.Old, "v"), b.Ecosystem)
	nv, err2 := semantic.Parse(strings.TrimPrefix(b.New, "v"), b.Ecosystem)
	var c int
	err := errors.Join(err1, err2)
	if err == nil {
		c, err = nv.Compare(ov)
	}
	if err != nil {
		v.drops = append(v.drops, dropped{keysOf(recs), DropUnparsable, fmt.Sprintf("%s %s -> %s: %v", b.Ecosystem, b.Old, b.New, err)})
		return v
	}
	if c == 0 {
		return v // the same version written two ways
	}
	byKey := map[string][]*record{}
	var keys []string
	for _, r := range recs {
		if byKey[r.key] == nil {
			keys = append(keys, r.key)
		}
		byKey[r.key] = append(byKey[r.key], r)
	}
	slices.Sort(keys)
	var still, downgraded, withdrawn []string
	var still1, down1 string
	for _, k := range keys {
		var oldAff, newAff, live, wasFixed bool
		var oldBy []*record
		var perr error
		for _, r := range byKey[k] {
			if r.merr != nil {
				perr = fmt.Errorf("%s: %w", r.id, r.merr)
				continue
			}
			oa, err1 := r.m.AffectsParsed(b.Old, ov)
			na, err2 := r.m.AffectsParsed(b.New, nv)
			if err := errors.Join(err1, err2); err != nil {
				perr = fmt.Errorf("%s: %w", r.id, err)
				continue
			}
			if r.withdrawn {
				wasFixed = wasFixed || oa && !na
				continue
			}
			live = live || oa || na
			if oa {
				oldAff = true
				oldBy = append(oldBy, r)
			}
			newAff = newAff || na
		}
		switch {
		case perr != nil && !oldAff && !newAff:
			v.drops = append(v.drops, dropped{[]string{k}, DropUnparsable, perr.Error()})
		case c < 0 && (oldAff || newAff):
			downgraded = append(downgraded, k)
			if down1 == "" {
				down1 = affectedText(b, byKey[k], oldAff, newAff)
			}
		case c < 0:
		case oldAff && !newAff:
			v.fixed = append(v.fixed, fixedVuln{k, oldBy})
		case oldAff && newAff:
			still = append(still, k)
			if still1 == "" {
				still1 = fmt.Sprintf("%s %s is still affected by %s", b.Package, b.New, recIDs(byKey[k]))
			}
		case !live && wasFixed:
			withdrawn = append(withdrawn, k)
		}
	}
	if len(downgraded) > 0 {
		v.drops = append(v.drops, dropped{downgraded, DropDowngrade, fmt.Sprintf("%s lowered from %s to %s; %s", b.Package, b.Old, b.New, down1)})
	}
	if len(still) > 0 {
		v.drops = append(v.drops, dropped{still, DropStillAffected, still1 + more(len(still))})
	}
	if len(withdrawn) > 0 {
		v.drops = append(v.drops, dropped{withdrawn, DropWithdrawn, "every record of " + strings.Join(withdrawn, ", ") + " was withdrawn"})
	}
	return v
}

func more(n int) string {
	if n > 1 {
		return fmt.Sprintf(" (and %d more)", n-1)
	}
	return ""
}

func affectedText(b *Bump, recs []*record, oldAff, newAff bool) string {
	switch {
	case oldAff && newAff:
		return "both affected by " + recIDs(recs)
	case newAff:
		return b.New + " is affected by " + recIDs(recs)
	}
	return b.Old + " was affected by " + recIDs(recs)
}

func recIDs(recs []*record) string {
	var ids []string
	for _, r := range recs {
		if !slices.Contains(ids, r.id) {
			ids = append(ids, r.id)
		}
	}
	slices.Sort(ids)
	return strings.Join(ids, ", ")
}

func keysOf(recs []*record) []string {
	var out []string
	for _, r := range recs {
		if !slices.Contains(out, r.key) {
			out = append(out, r.key)
		}
	}
	slices.Sort(out)
	return out
}
