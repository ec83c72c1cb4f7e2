package web

import (
	"net/url"
	"testing"
)

func TestRunLink(t *testing.T) {
	for _, tc := range []struct {
		id, want string
		q        url.Values
		sub      []string
	}{
		{"r1", "/runs/r1", nil, nil},
		{"../../evil", "/runs/..%2F..%2Fevil/cases?flip=b", url.Values{"flip": {"b"}}, []string{"cases"}},
		{"..", "/runs/%2E%2E/case?id=a%26b", url.Values{"id": {"a&b"}}, []string{"case"}},
		{"a b?c#d", "/runs/a%20b%3Fc%23d", nil, nil},
	} {
		if got := runLink(tc.id, tc.q, tc.sub...); got != tc.want {
			t.Errorf("runLink(%q) = %q, want %q", tc.id, got, tc.want)
		}
	}
}
