package web

import (
	"net/url"
	"strings"

	"github.com/vulnbench/vulnbench/internal/textnorm"
)

// runLink is the one way the viewer links to a run's pages: /runs/ID, then each of sub as a path
// word, then the query. The id is one escaped path segment ("/" and ".." cannot climb out of
// /runs/), whatever a store holds; every link of every page is made here (templates: runurl).
func runLink(id string, query url.Values, sub ...string) string {
	var b strings.Builder
	b.WriteString("/runs/")
	b.WriteString(textnorm.PathSegment(id))
	for _, s := range sub {
		b.WriteByte('/')
		b.WriteString(textnorm.PathSegment(s))
	}
	if len(query) > 0 {
		b.WriteByte('?')
		b.WriteString(query.Encode())
	}
	return b.String()
}

// runURL is runLink for templates: {{runurl .ID}}, {{runurl .ID "cases"}}.
func runURL(id string, sub ...string) string { return runLink(id, nil, sub...) }
