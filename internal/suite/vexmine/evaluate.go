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

// replacement is what the advisories say of a package a change removed: fixed by the package
// that replaced it, or a drop.
type replacement struct {
	bump  *Bump
	fixed *fixedVuln
	drop  *dropped
}

// replacements judges the packages a change removed from its manifests (and added to none
// of them, under any version): one affected by a vulnerability whose records name a package
// the change added, at a version they say is not affected, was replaced by a fixed one (Go's
// github.com/dgrijalva/jwt-go by its /v4 module, say); one replaced by nothing is dropped as
// removed.
func (m *miner) replacements(bumps []*Bump, lones []lone) []replacement {
	kept := map[string]bool{}
	for _, b := range bumps {
		kept[pkgKey(b.Ecosystem, b.Package)] = true
	}
	var comes []lone
	for _, l := range lones {
		if !l.gone {
			kept[pkgKey(l.eco, l.name)] = true
			comes = append(comes, l)
		}
	}
	var out []replacement
	seen := map[string]bool{}
	for _, g := range lones {
		k := pkgKey(g.eco, g.name)
		if !g.gone || kept[k] || seen[k] {
			continue
		}
		seen[k] = true
		recs := m.ix.of(g.eco, g.name)
		if len(recs) == 0 {
			continue
		}
		m.rep.Advised++
		ov, err := semantic.Parse(strings.TrimPrefix(g.version, "v"), g.eco)
		if err != nil {
			continue
		}
		byKey := map[string][]*record{}
		var keys []string
		for _, r := range recs {
			if r.withdrawn || r.merr != nil {
				continue
			}
			if aff, err := r.m.AffectsParsed(g.version, ov); err == nil && aff {
				if byKey[r.key] == nil {
					keys = append(keys, r.key)
				}
				byKey[r.key] = append(byKey[r.key], r)
			}
		}
		slices.Sort(keys)
		var removed []string
		for _, key := range keys {
			if b := m.replacedBy(g, key, comes); b != nil {
				out = append(out, replacement{bump: b, fixed: &fixedVuln{key, byKey[key]}})
				continue
			}
			removed = append(removed, key)
		}
		if len(removed) > 0 {
			b := &Bump{Ecosystem: g.eco, Package: g.name, Old: g.version, Ranged: g.ranged, Manifests: []ManifestChange{g.mc}}
			out = append(out, replacement{bump: b, drop: &dropped{removed, DropRemoved,
				fmt.Sprintf("%s %s was removed, not raised (affected by %s)", g.name, g.version, recIDs(byKey[removed[0]]))}})
		}
	}
	return out
}

// replacedBy finds the package among comes that the records of vulnerability key name, at a
// version none of them says is affected: the bump from g to it.
func (m *miner) replacedBy(g lone, key string, comes []lone) *Bump {
	for _, c := range comes {
		if c.eco != g.eco {
			continue
		}
		var named, affected bool
		nv, err := semantic.Parse(strings.TrimPrefix(c.version, "v"), c.eco)
		if err != nil {
			continue
		}
		for _, r := range m.ix.of(c.eco, c.name) {
			if r.key != key || r.withdrawn || r.merr != nil {
				continue
			}
			named = true
			if aff, err := r.m.AffectsParsed(c.version, nv); err != nil || aff {
				affected = true
			}
		}
		if named && !affected {
			ms := []ManifestChange{g.mc}
			if c.mc.Path == g.mc.Path {
				ms[0].NewLine, ms[0].New = c.mc.NewLine, c.mc.New
			} else {
				ms = append(ms, c.mc)
			}
			return &Bump{Ecosystem: g.eco, Package: g.name, Old: g.version, NewPackage: c.name, New: c.version,
				Ranged: g.ranged || c.ranged, Manifests: ms}
		}
	}
	return nil
}
