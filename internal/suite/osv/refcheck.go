package osv

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/vulnbench/vulnbench/internal/advisory"
	"github.com/vulnbench/vulnbench/internal/deps"
	"github.com/vulnbench/vulnbench/internal/suite/jitvul"
)

// checkCandidate says why a commit that a WEB, PACKAGE or ADVISORY reference names is not the
// record's fix ("" when it may be): records list commits of every kind there (GitHub's
// advisories put the commits that brought the bug beside those that fixed it), so such a commit
// is taken only when it changes source code the code graph reads (not only docs, tests, build
// files) and no release of a version the record calls affected holds it.
func checkCandidate(ctx context.Context, g *jitvul.Git, r *Record, c jitvul.Commit) (string, error) {
	if len(c.Parents) == 0 {
		return fmt.Sprintf("%s is a root commit", short(c.OID)), nil
	}
	code, err := touchesCode(ctx, g, c)
	if err != nil {
		return "", err
	}
	if !code {
		return fmt.Sprintf("%s changes no source code (docs, tests, build files or languages the code graph does not read)", short(c.OID)), nil
	}
	tags, err := g.TagsContaining(ctx, c.OID)
	if err != nil {
		return "", err
	}
	for _, tag := range tags {
		if af, v, ok := affectedRelease(r.Affected, tag); ok {
			return fmt.Sprintf("%s is in release %s, and the record says %s %s is affected: not the fix", short(c.OID), tag, af.Package, v), nil
		}
	}
	return "", nil
}

// affectedRelease reports whether tag names a version one of the packages is affected in: the
// tag's version is what follows its last prefix that is not a version ("v1.2.3", "1.2.3",
// "jackson-databind-2.13.4", "netty-4.1.68.Final"). A tag that reads as no version, or one the
// ecosystem cannot compare, affects nothing.
func affectedRelease(afs []advisory.Affected, tag string) (advisory.Affected, string, bool) {
	v := tagVersion(tag)
	if v == "" {
		return advisory.Affected{}, "", false
	}
	for _, af := range afs {
		if af.Ecosystem == "" || len(af.Ranges) == 0 && len(af.Versions) == 0 {
			continue
		}
		if in, err := deps.Affects(af.Ecosystem, v, af); err == nil && in {
			return af, v, true
		}
	}
	return advisory.Affected{}, "", false
}

// tagVersion is the version a release tag names: from its first digit that starts the tag or
// follows "v", "-", "_" or "/" and holds a dot; "" when there is none, or when it names a
// series ("2.3.x").
func tagVersion(tag string) string {
	for i := 0; i < len(tag); i++ {
		if tag[i] < '0' || tag[i] > '9' {
			continue
		}
		if i == 0 || strings.ContainsRune("vV-_/", rune(tag[i-1])) {
			v := tag[i:]
			// a branch-like tag ("2.3.x", "1.*") names a series, not a release
			if strings.ContainsRune(v, '.') && !slices.ContainsFunc(strings.Split(v, "."), func(p string) bool { return p == "x" || p == "X" || p == "*" }) {
				return v
			}
			return ""
		}
	}
	return ""
}
