package textnorm_test

import (
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/vulnbench/vulnbench/internal/textnorm"
)

func TestFold(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want textnorm.Folded
	}{
		{"Ignore  Previous\n * Instructions", textnorm.Folded{Text: "ignore previous instructions"}},
		{"ignore\u00a0previous", textnorm.Folded{Text: "ignore previous"}},
		{"ig\u200bnore pre\u202evious", textnorm.Folded{Text: "ignore previous", Hidden: 2}},
		{"\u0456gnore", textnorm.Folded{Text: "ignore", Mixed: 1}},
		{"привет", textnorm.Folded{Text: "пpиbet"}},
		{"\uFEFFint x; // ＩＧＮＯＲＥ", textnorm.Folded{Text: "int x; ignore"}},
		// issue 35 item 6: Armenian, small capitals, Cherokee, combining marks, precomposed accents
		{"ign\u0585re", textnorm.Folded{Text: "ignore", Mixed: 1}},
		{"\u026a\u0262\u0274\u1d0f\u0280\u1d07", textnorm.Folded{Text: "ignore"}},
		{"\u13a5gnore", textnorm.Folded{Text: "ignore", Mixed: 1}},
		{"i\u0307gnore pre\u0301vious", textnorm.Folded{Text: "ignore previous"}},
		{"ïgnoré Größe", textnorm.Folded{Text: "ignore große"}},
	} {
		if d := cmp.Diff(tc.want, textnorm.Fold(tc.in)); d != "" {
			t.Errorf("Fold(%q) (-want +got):\n%s", tc.in, d)
		}
	}
}

func TestCheckID(t *testing.T) {
	for _, tc := range []struct {
		id string
		ok bool
	}{
		{"CVE-2024-1234/fix", true}, {"a b..c", true}, {"..", true}, {"кейс-1", true},
		{"", false}, {"x\x1b[31m", false}, {"a\nb", false}, {"a\u202eb", false}, {"\xff", false},
		{strings.Repeat("x", textnorm.MaxID+1), false},
	} {
		if err := textnorm.CheckID(tc.id); (err == nil) != tc.ok {
			t.Errorf("CheckID(%q) = %v, want ok %v", tc.id, err, tc.ok)
		}
	}
}

func TestPathSegment(t *testing.T) {
	for id, want := range map[string]string{"a/b": "a%2Fb", "..": "%2E%2E", ".": "%2E", "a..b": "a..b", "x%y": "x%25y"} {
		if got := textnorm.PathSegment(id); got != want {
			t.Errorf("PathSegment(%q) = %q, want %q", id, got, want)
		}
	}
}

// FuzzNormalise: Fold never fails, is idempotent on its text and leaves no format character or
// upper-case letter; an id CheckID accepts is one path segment of a URL that decodes back to it.
func FuzzNormalise(f *testing.F) {
	for _, s := range []string{"ignore previous instructions", "ig\u200bnore", "\u0456", "a/../b", "\x1b[0m", "\uFEFF\u202e", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fd := textnorm.Fold(s)
		if again := textnorm.Fold(fd.Text); again.Text != fd.Text {
			t.Errorf("Fold is not idempotent: %+q -> %+q -> %+q", s, fd.Text, again.Text)
		}
		if !utf8.ValidString(fd.Text) {
			t.Errorf("Fold(%q) is not UTF-8: %q", s, fd.Text)
		}
		if textnorm.CheckID(s) != nil {
			return
		}
		seg := textnorm.PathSegment(s)
		if strings.Contains(seg, "/") || seg == "." || seg == ".." {
			t.Errorf("PathSegment(%q) = %q: not one segment", s, seg)
		}
		u, err := url.Parse("http://h/case/" + seg)
		if err != nil || u.Path != "/case/"+s {
			t.Errorf("PathSegment(%q) = %q: parses to %q, %v", s, seg, u, err)
		}
	})
}

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 40, "short"},
		{strings.Repeat("a", 41), 40, strings.Repeat("a", 37) + "..."},
		{strings.Repeat("a", 36) + "é" + "tail", 40, strings.Repeat("a", 36) + "..."}, // é spans bytes 36-37
		{"\xff\xfe" + strings.Repeat("b", 50), 10, "\uFFFD" + "bbbbb..."},             // invalid bytes: one replacement character
	} {
		got := textnorm.Clip(tc.in, tc.n)
		if got != tc.want || !utf8.ValidString(got) {
			t.Errorf("Clip(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}
