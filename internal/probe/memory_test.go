package probe

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

func TestTokens(t *testing.T) {
	got := Tokens("if (n > 8)\n\treturn buf[0] + x_1; s = \"a \\\" b\"; c = 'x';")
	want := []string{"if", "(", "n", ">", "8", ")", "return", "buf", "[", "0", "]", "+", "x_1", ";", "s", "=", `"a \" b"`, ";", "c", "=", "'x'", ";"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// fn is a function of 12 lines for case i, every line of it distinct from the other cases'
// (boilerplate lines shared by cases would match the control: that is what it is for).
func fn(i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "static int decode_%d(const unsigned char *p, size_t n, int flags)\n{\n", i)
	fmt.Fprintf(&b, "\tunsigned char buf[%d];\n\tsize_t k%d;\n", 16+i, i)
	fmt.Fprintf(&b, "\tif (n < %d)\n\t\treturn -%d;\n", i+2, i+1)
	fmt.Fprintf(&b, "\tfor (k%d = 0; k%d < n; k%d++)\n\t\tbuf[k%d %% %d] = p[k%d] ^ 0x%02x;\n", i, i, i, i, 16+i, i, i)
	fmt.Fprintf(&b, "\tflags |= buf[%d] << %d;\n\treturn flags + %d;\n}\n", i%16, i%8, i*3)
	return b.String()
}

func TestCut(t *testing.T) {
	p, err := Cut("c1", "2024-05-01T00:00:00Z", fn(1), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(p.Prefix, "\n") || !strings.HasPrefix(fn(1), p.Prefix) || p.Year != "2024" || len(p.Want) != 10 {
		t.Fatalf("probe %+v", p)
	}
	rest := strings.TrimPrefix(fn(1), p.Prefix)
	if d := cmp.Diff(Tokens(rest)[:10], p.Want); d != "" {
		t.Errorf("want (-rest +got):\n%s", d)
	}
	if n := len(Tokens(p.Prefix)); n < DefaultMinPrefix {
		t.Errorf("prefix of %d tokens", n)
	}
	var short *ErrTooShort
	if _, err := Cut("c2", "", "int f(void)\n{\n\treturn 0;\n}\n", Options{}); !errors.As(err, &short) || short.CaseID != "c2" {
		t.Errorf("short code: %v", err)
	}
}

func TestContinues(t *testing.T) {
	p, err := Cut("c", "", fn(3), Options{})
	if err != nil {
		t.Fatal(err)
	}
	rest := strings.TrimPrefix(fn(3), p.Prefix)
	lines := strings.Split(strings.TrimRight(p.Prefix, "\n"), "\n")
	for _, tc := range []struct {
		name, answer string
		want         bool
	}{
		{"the rest verbatim", rest, true},
		{"other layout, same tokens", strings.Join(strings.Fields(rest), "  "), true},
		{"in a code fence", "```c\n" + rest + "```\n", true},
		{"after the prefix's last line again", lines[len(lines)-1] + "\n" + rest, true},
		// a preamble (issue 35 item 5): 0 of 14 recited cases were counted with one
		{"after a one-line preamble", "Here is the continuation of the file:\n" + rest, true},
		{"after a two-line preamble", "Sure.\nThe lines that follow are:\n\n" + rest, true},
		{"after a preamble, in a fence", "Here is the rest:\n\n```c\n" + rest + "```\nThis closes the loop.", true},
		{"after a preamble, the last line again, in a fence", "Continuing:\n```\n" + lines[len(lines)-1] + "\n" + rest + "```", true},
		{"after three lines of prose", "I think.\nThat the file.\nGoes on so:\n" + rest, false},
		{"the code inside a sentence", "It goes on with " + rest, false},
		{"one token off", strings.Replace(rest, "k3", "j3", 1), false},
		{"too short", strings.Join(Tokens(rest)[:5], " "), false},
		{"something else", "return 0;\n}\n", false},
		{"empty", "", false},
	} {
		if got := Continues(tc.answer, p.Prefix, p.Want); got != tc.want {
			t.Errorf("%s: Continues = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A model scripted to recite some cases: exactly those count as memorised, and the shuffled
// control stays at zero (the cases are distinct, so no answer continues another case).
func TestScoreAndTable(t *testing.T) {
	var probes []Probe
	answers := map[string]string{}
	recite := map[string]bool{"c01": true, "c04": true, "c07": true, "c10": true}
	for i := 0; i < 12; i++ {
		id := fmt.Sprintf("c%02d", i)
		date := fmt.Sprintf("%d-06-01T00:00:00Z", 2023+i%3)
		if i == 11 {
			date = ""
		}
		p, err := Cut(id, date, fn(i), Options{})
		if err != nil {
			t.Fatal(err)
		}
		probes = append(probes, p)
		if recite[id] {
			answers[id] = "```\n" + strings.TrimPrefix(fn(i), p.Prefix) + "```"
		} else if i != 5 { // c05 has no answer (an error verdict): left out
			answers[id] = "\treturn 0;\n}\n"
		}
	}
	res := Score(probes, answers, 42)
	var mem []string
	for _, r := range res {
		if r.Memorised {
			mem = append(mem, r.CaseID)
		}
		if r.Control {
			t.Errorf("%s: the control matched", r.CaseID)
		}
		if r.CaseID == "c05" {
			t.Errorf("a case without an answer was scored")
		}
	}
	if d := cmp.Diff([]string{"c01", "c04", "c07", "c10"}, mem); d != "" {
		t.Errorf("memorised (-want +got):\n%s", d)
	}
	got := Table(res)
	wantTable := []Row{ // every recited case is dated 2024
		{Year: "(none)", Prompts: 1, Cases: 1},
		{Year: "2023", Prompts: 4, Cases: 4},
		{Year: "2024", Prompts: 4, Cases: 4, Memorised: 4, Share: 1},
		{Year: "2025", Prompts: 2, Cases: 2},
		{Year: "all", Prompts: 11, Cases: 11, Memorised: 4, Share: 4.0 / 11},
	}
	if d := cmp.Diff(wantTable, got); d != "" {
		t.Errorf("table (-want +got):\n%s", d)
	}
}

// The control of a model that recites one well-known continuation for every case: its own
// share and the control's are the same, which says the match is chance, not memory.
func TestControlCatchesGenericAnswers(t *testing.T) {
	var probes []Probe
	answers := map[string]string{}
	for i := 0; i < 6; i++ {
		p := Probe{CaseID: fmt.Sprint(i), Prefix: fmt.Sprintf("int f%d(void)\n{\n", i), Want: Tokens("return 0 ; } int g ( void ) { return")}
		probes = append(probes, p)
		answers[p.CaseID] = "return 0;\n}\nint g(void)\n{\n\treturn 1;\n}\n"
	}
	rows := Table(Score(probes, answers, 7))
	all := rows[len(rows)-1]
	if all.Share != 1 || all.ControlShare != 1 {
		t.Errorf("generic answers: %+v", all)
	}
}

func TestDerangement(t *testing.T) {
	for n := 2; n < 40; n++ {
		for seed := uint64(0); seed < 5; seed++ {
			d := derangement(n, seed)
			seen := map[int]bool{}
			for i, j := range d {
				if i == j || seen[j] || j < 0 || j >= n {
					t.Fatalf("n %d seed %d: %v", n, seed, d)
				}
				seen[j] = true
			}
			if d2 := derangement(n, seed); !cmp.Equal(d, d2) {
				t.Fatalf("not deterministic")
			}
		}
	}
	if derangement(1, 1) != nil {
		t.Error("n = 1")
	}
}

// The two halves of a pair cut before their change are one prompt: the model is asked once and
// its answer counts once, memorised when it continues either half (issue 35 item 5: a recited
// pair counted twice); a half without an answer of its own is covered by its twin's.
func TestPairSharingAPromptCountsOnce(t *testing.T) {
	vul := fn(1)
	ben := strings.Replace(vul, "\treturn flags + ", "\treturn flags & 0xff, ", 1) // the fix is after the cut
	var probes []Probe
	for _, c := range []struct{ id, code string }{{"p1-ben", ben}, {"p1-vul", vul}, {"p2-vul", fn(2)}, {"p2-ben", fn(3)}} {
		p, err := Cut(c.id, "2024-01-01", c.code, Options{})
		if err != nil {
			t.Fatal(err)
		}
		p.Lang = "c"
		probes = append(probes, p)
	}
	if probes[0].Prefix != probes[1].Prefix || probes[0].Prefix == probes[2].Prefix {
		t.Fatal("the fixture's pair does not share its prefix")
	}
	// The model recites the vul half; only p1-vul's answer is stored (its twin's call was the same).
	answers := map[string]string{"p1-vul": strings.TrimPrefix(vul, probes[1].Prefix), "p2-vul": "return 0;", "p2-ben": "return 1;"}
	res := Score(probes, answers, 3)
	var got []string
	for _, r := range res {
		got = append(got, fmt.Sprintf("%s memorised=%v", strings.Join(r.Cases, "+"), r.Memorised))
	}
	want := []string{"p1-ben+p1-vul memorised=true", "p2-ben memorised=false", "p2-vul memorised=false"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("results (-want +got):\n%s", d)
	}
	all := Table(res)[1]
	if all.Prompts != 3 || all.Cases != 4 || all.Memorised != 1 {
		t.Errorf("table %+v: want 3 prompts for 4 cases, 1 memorised", all)
	}
}

// Attempts that ended in an error and were tried again are counted with their reasons; model
// calls retried within an attempt are summed.
func TestRetriesOf(t *testing.T) {
	got := RetriesOf([]verdict.Verdict{
		{CaseID: "a", Attempt: 0, Status: verdict.Error, Reason: "timeout after 5m0s"},
		{CaseID: "a", Attempt: 1, Status: verdict.Error, Reason: "provider: 503 Service Unavailable"},
		{CaseID: "a", Attempt: 2, Status: verdict.OK, Usage: verdict.Usage{Retries: 2}},
		{CaseID: "b", Attempt: 0, Status: verdict.Error, Reason: "timeout after 5m0s"},
		{CaseID: "b", Attempt: 1, Status: verdict.OK, Usage: verdict.Usage{Retries: 1}},
		{CaseID: "c", Attempt: 0, Status: verdict.Error, Reason: "still failing"}, // the latest: not retried (yet)
	})
	want := Retries{Attempts: 3, Calls: 3, Reasons: map[string]int{"timeout after 5m0s": 2, "provider: 503 Service Unavailable": 1}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
