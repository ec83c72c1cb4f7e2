package redact

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// unfiltered is String without the literal filter: every shape searched in every text.
func unfiltered(sc *Scrubber, s string) string {
	for _, k := range sc.known {
		s = strings.ReplaceAll(s, k, Mark)
	}
	for _, sh := range shapes {
		s = sh.re.ReplaceAllString(s, "${1}"+Mark+"${2}")
	}
	return s
}

// The filter skips only shapes that cannot match: on secrets of every shape, in every case, next
// to non-ASCII text (the Kelvin sign folds to k) and beside text holding none, String scrubs
// exactly what searching every shape scrubs.
func TestFilterSkipsOnlyWhatCannotMatch(t *testing.T) {
	sc := New("planted-key-1234")
	secrets := []string{
		"postgres://vb:s3cr3t@db/vb", "HTTPS://u:p@h", "password=x1", "PassWord = 'a b'", "SSLPASSWORD=zz",
		"Authorization: Bearer abc.def", `"AUTHORIZATION": "Basic Zm9v"`, "Proxy-Authorization: token t",
		`"x-api-key": "k-1"`, "X-Goog-Api-Key=abc", "API_KEY=v", "apikey: w", "Access-Token=q", "ACCESSTOKEN: r",
		"sk-ant-api03-AAAAAAAA", "sk-proj-BBBBBBBBBBBBBBBBBB", "AIza" + strings.Repeat("c", 32),
		"ghp_" + strings.Repeat("d", 22), "github_pat_" + strings.Repeat("e", 22), "AKIA" + strings.Repeat("F", 16),
		"hf_" + strings.Repeat("g", 22), "xoxb-1234567890ab", "planted-key-1234",
		"api_\u212Aey=kelvin", "pass\u212Aord=x", "p\u00e4ssword=x password=y", "AUTHORI\u017fATION: Bearer s",
	}
	plain := []string{"", "a plain answer", `{"vulnerable": true, "cwe": ["CWE-79"]}`, "caf\u00e9 \u00fcber", "[redacted]"}
	var inputs []string
	for _, s := range secrets {
		for _, p := range plain {
			inputs = append(inputs, s, p+" "+s, s+" "+p, strings.ToUpper(s)+p, strings.ToLower(p+s))
		}
	}
	inputs = append(inputs, plain...)
	for _, in := range inputs {
		if d := cmp.Diff(unfiltered(sc, in), sc.String(in)); d != "" {
			t.Errorf("String(%q) differs from searching every shape (-all +filtered):\n%s", in, d)
		}
	}
	// and the filter does skip: a plain answer, or a model's reply with logprobs, is searched by none.
	for _, text := range []string{"a plain answer", `{"logprobs": {"content": [{"token": " two", "logprob": -3}]}, "usage": {"prompt_tokens": 9}}`} {
		for _, sh := range shapes {
			if sh.mayMatch(text, strings.ToLower(text)) {
				t.Errorf("%s is searched in %s", sh.re, text)
			}
		}
	}
}
