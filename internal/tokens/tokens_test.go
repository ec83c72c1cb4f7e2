package tokens

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// loaded shares the two encodings between the tests of this file (each takes a few hundred
// milliseconds to load).
var loaded = struct {
	sync.Once
	o200k, cl100k *Encoding
	err           error
}{}

func encodings(t testing.TB) (o200k, cl100k *Encoding) {
	t.Helper()
	loaded.Do(func() {
		if loaded.o200k, loaded.err = Load(O200kBase); loaded.err == nil {
			loaded.cl100k, loaded.err = Load(Cl100kBase)
		}
	})
	if loaded.err != nil {
		t.Fatal(loaded.err)
	}
	return loaded.o200k, loaded.cl100k
}

// The embedded rank files are OpenAI's published ones: their SHA-256 is the one OpenAI's
// tiktoken checks them against, and their sizes are those of the files (o200k_base: 199,998
// tokens; cl100k_base: 100,256).
func TestRankFiles(t *testing.T) {
	o200k, cl100k := encodings(t)
	for _, c := range []struct {
		file, sha string
		enc       *Encoding
		n         int
	}{
		{"o200k_base.tiktoken", "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d", o200k, 199998},
		{"cl100k_base.tiktoken", "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7", cl100k, 100256},
	} {
		b, err := assets.Assets.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != c.sha {
			t.Errorf("%s: sha256 %s, want %s", c.file, got, c.sha)
		}
		if c.enc.Len() != c.n {
			t.Errorf("%s: %d tokens, want %d", c.file, c.enc.Len(), c.n)
		}
	}
}

// Known encodings derived from the rank files: each text's tokens are given as the byte strings
// tiktoken cuts it into, and the expected ids are those strings' ranks in the rank file (each
// must be a token). The cuts show each rule of the pre-tokenizers: contractions, case runs,
// digit triples, punctuation runs with their line breaks, white space before a word, CJK.
func TestKnownEncodings(t *testing.T) {
	o200k, cl100k := encodings(t)
	cases := []struct {
		enc    *Encoding
		text   string
		pieces []string
	}{
		{o200k, "hello world", []string{"hello", " world"}},
		{cl100k, "hello world", []string{"hello", " world"}},
		{o200k, "It's 2024", []string{"It's", " ", "202", "4"}},
		{cl100k, "It's 2024", []string{"It", "'s", " ", "202", "4"}},
		{o200k, "getHTTPResponse", []string{"get", "HTTP", "Response"}},
		{o200k, "strcpy(buf, src);", []string{"str", "cpy", "(buf", ",", " src", ");"}},
		{cl100k, "strcpy(buf, src);", []string{"strcpy", "(buf", ",", " src", ");"}},
		{o200k, "});\n\n/", []string{"});\n\n/"}},
		{cl100k, "});\n\n/", []string{"});\n\n", "/"}},
		{o200k, "a   b", []string{"a", "  ", " b"}},
		{o200k, "x\n\n  y", []string{"x", "\n\n", " ", " y"}},
		{cl100k, "trailing  ", []string{"tr", "ailing", "  "}},
		{o200k, "日本語", []string{"日本", "語"}},
		{cl100k, "日本語", []string{"日", "本", "\xe8\xaa", "\x9e"}}, // a character split across two tokens
	}
	for _, c := range cases {
		var want []int
		for _, p := range c.pieces {
			id, ok := c.enc.Rank([]byte(p))
			if !ok {
				t.Fatalf("%s: %q is not a token", c.enc.Name(), p)
			}
			want = append(want, id)
		}
		if d := cmp.Diff(want, c.enc.Encode(c.text)); d != "" {
			t.Errorf("%s %q (-want +got):\n%s", c.enc.Name(), c.text, d)
		}
	}
}

// TestReference compares the encodings of tricky texts with those OpenAI's own tiktoken gives
// (testdata/reference.jsonl, written by testdata/reference.js with the npm package tiktoken
// 1.0.22, tiktoken's Rust core compiled to WebAssembly).
func TestReference(t *testing.T) {
	o200k, cl100k := encodings(t)
	f, err := os.Open("testdata/reference.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var ref struct {
			Encoding string
			Text     string
			IDs      []int
		}
		if err := json.Unmarshal(sc.Bytes(), &ref); err != nil {
			t.Fatal(err)
		}
		enc := o200k
		if ref.Encoding == Cl100kBase {
			enc = cl100k
		}
		if d := cmp.Diff(ref.IDs, enc.Encode(ref.Text), cmp.Transformer("empty", func(s []int) []int {
			if len(s) == 0 {
				return nil
			}
			return s
		})); d != "" {
			t.Errorf("%s %q (-tiktoken +ours):\n%s", ref.Encoding, ref.Text, d)
		}
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 60 {
		t.Fatalf("only %d reference encodings read", n)
	}
}

// decoders are the encodings' tokens by id, built once.
var decoders sync.Map // *Encoding -> map[int32]string

// decode joins the tokens' bytes.
func decode(t testing.TB, e *Encoding, ids []int) string {
	t.Helper()
	m, ok := decoders.Load(e)
	if !ok {
		byID := make(map[int32]string, len(e.ranks))
		for tok, id := range e.ranks {
			byID[id] = tok
		}
		m, _ = decoders.LoadOrStore(e, byID)
	}
	byID := m.(map[int32]string)
	var b strings.Builder
	for _, id := range ids {
		tok, ok := byID[int32(id)]
		if !ok {
			t.Fatalf("id %d is no token", id)
		}
		b.WriteString(tok)
	}
	return b.String()
}

// naive is byte-pair encoding written the slow, obvious way, to check merge against: a list
// of byte strings; merge the adjacent pair whose concatenation has the lowest rank, the
// leftmost of equals, until none has a rank.
func naive(e *Encoding, piece string) []int {
	parts := make([]string, 0, len(piece))
	for i := 0; i < len(piece); i++ {
		parts = append(parts, piece[i:i+1])
	}
	for {
		best, at := int32(-1), -1
		for i := 0; i+1 < len(parts); i++ {
			if r, ok := e.ranks[parts[i]+parts[i+1]]; ok && (at < 0 || r < best) {
				best, at = r, i
			}
		}
		if at < 0 {
			break
		}
		parts = append(parts[:at], append([]string{parts[at] + parts[at+1]}, parts[at+2:]...)...)
	}
	out := make([]int, len(parts))
	for i, p := range parts {
		out[i] = int(e.ranks[p])
	}
	return out
}

// randomText mixes ASCII code, letters of several cases and scripts, marks, digits, white space
// of every kind and contractions.
func randomText(rng *rand.Rand, n int) string {
	alphabet := []rune("aZ09 \t\n\r'sSltTvVrRemMdD/.,;(){}[]-_=+ÉéßŸıİ\u00a0\u3000\u2028\u0085\u0300\u0301\u02b0中日ⅫǅΣσς١🎉")
	words := []string{"int ", "return", "'s", "'LL", "HTTPServer", "  ", "\n\n", "});\n", "strcpy", "0x1F", "   "}
	var b strings.Builder
	for b.Len() < n {
		if rng.IntN(4) == 0 {
			b.WriteString(words[rng.IntN(len(words))])
		} else {
			b.WriteRune(alphabet[rng.IntN(len(alphabet))])
		}
	}
	return b.String()
}

// Every text decodes back to itself, its pieces tile it, and merge gives what the naive
// byte-pair encoding gives on every piece.
func TestProperties(t *testing.T) {
	o200k, cl100k := encodings(t)
	rng := rand.New(rand.NewPCG(7, 11))
	for _, e := range []*Encoding{o200k, cl100k} {
		for i := 0; i < 300; i++ {
			text := randomText(rng, rng.IntN(200))
			ids := e.Encode(text)
			if got := decode(t, e, ids); got != text {
				t.Fatalf("%s: %q decodes to %q", e.Name(), text, got)
			}
			if n := e.Count(text); n != len(ids) {
				t.Fatalf("%s: Count %d, Encode %d tokens", e.Name(), n, len(ids))
			}
			for j := 0; j < len(text); {
				k := e.next(text, j)
				if k <= j || k > len(text) {
					t.Fatalf("%s: piece at %d of %q ends at %d", e.Name(), j, text, k)
				}
				piece := text[j:k]
				var got []int
				parts := e.merge(piece, nil)
				for x := 0; x+1 < len(parts); x++ {
					got = append(got, int(e.ranks[piece[parts[x].start:parts[x+1].start]]))
				}
				if d := cmp.Diff(naive(e, piece), got); d != "" {
					t.Fatalf("%s: piece %q (-naive +merge):\n%s", e.Name(), piece, d)
				}
				j = k
			}
		}
	}
}

// Invalid UTF-8 is encoded byte for byte, never lost.
func TestInvalidUTF8(t *testing.T) {
	o200k, _ := encodings(t)
	text := "ok \xff\xfe bytes\xc3"
	if utf8.ValidString(text) {
		t.Fatal("the text should be invalid UTF-8")
	}
	if got := decode(t, o200k, o200k.Encode(text)); got != text {
		t.Fatalf("%q decodes to %q", text, got)
	}
}

func TestEncodingOf(t *testing.T) {
	cases := []struct {
		model, enc string
		exact      bool
	}{
		{"gpt-4o", O200kBase, true},
		{"openai:gpt-4o-mini-2024-07-18", O200kBase, true},
		{"gpt-4.1-nano", O200kBase, true},
		{"gpt-5", O200kBase, true},
		{"gpt-5.1-codex", O200kBase, true},
		{"o1-mini", O200kBase, true},
		{"o4-mini", O200kBase, true},
		{"ft:gpt-4o-mini:acme::abc", O200kBase, true},
		{"gpt-4", Cl100kBase, true},
		{"gpt-4-turbo-2024-04-09", Cl100kBase, true},
		{"openai:gpt-3.5-turbo", Cl100kBase, true},
		{"text-embedding-3-small", Cl100kBase, true},
		{"anthropic:claude-sonnet-4-5", O200kBase, false},
		{"openai:qwen2.5-coder", O200kBase, false},
		{"gpt-4omni-local", O200kBase, false}, // not a gpt-4o variant: no boundary after the prefix
		{"o10", O200kBase, false},
		{"bench", O200kBase, false},
	}
	for _, c := range cases {
		enc, exact := EncodingOf(c.model)
		if enc != c.enc || exact != c.exact {
			t.Errorf("EncodingOf(%q) = %s, %v; want %s, %v", c.model, enc, exact, c.enc, c.exact)
		}
	}
}

func TestCounter(t *testing.T) {
	c := New()
	text := "int main(void) { return 0; }\n"
	o200k, cl100k := encodings(t)
	if n, exact := c.Count("gpt-4o", text); n != o200k.Count(text) || !exact {
		t.Errorf("gpt-4o: %d, %v; want %d, true", n, exact, o200k.Count(text))
	}
	if n, exact := c.Count("gpt-4", text); n != cl100k.Count(text) || !exact {
		t.Errorf("gpt-4: %d, %v; want %d, true", n, exact, cl100k.Count(text))
	}
	if n, exact := c.Count("anthropic:claude-haiku-4-5", text); n != o200k.Count(text) || exact {
		t.Errorf("claude: %d, %v; want %d, false", n, exact, o200k.Count(text))
	}
	if _, err := Load("p50k_base"); err == nil {
		t.Error("Load(p50k_base): no error")
	}
}

func BenchmarkCount(b *testing.B) {
	o200k, _ := encodings(b)
	var texts []string
	n := 0
	for _, p := range []string{"encoding.go", "split.go", "tokens.go", "../../README.md", "../../suites/demo/demo.jsonl"} {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		texts = append(texts, string(data))
		n += len(data)
	}
	b.SetBytes(int64(n))
	for b.Loop() {
		for _, s := range texts {
			o200k.Count(s)
		}
	}
}

func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		if _, err := Load(O200kBase); err != nil {
			b.Fatal(err)
		}
	}
}
