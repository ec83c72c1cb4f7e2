package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vulnbench/vulnbench/internal/grade"
	"github.com/vulnbench/vulnbench/internal/judge"
	"github.com/vulnbench/vulnbench/internal/llmtest"
	"github.com/vulnbench/vulnbench/internal/score"
)

// appsecModel answers every appsec case with the full structured answer: SQL injection when the
// code builds SQL, cross-site scripting otherwise; every 40th answer is unparseable.
func appsecModel(r llmtest.Request) llmtest.Reply {
	p := r.Prompt()
	if r.Schema == nil || r.ResponseFormat != "json_schema" {
		return llmtest.Reply{Status: 400, ErrorMessage: "llmtest: appsec cases must ask for the appsec_answer json_schema"}
	}
	if strings.Count(p, "e")%40 == 7 {
		return llmtest.Reply{Text: "Sorry, I cannot help with that."}
	}
	cwe, owasp, sev, vec := "CWE-79", "A03:2021", "Medium", "CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N"
	if strings.Contains(strings.ToUpper(p), "SELECT") {
		cwe, sev, vec = "CWE-89", "Critical", "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"
	}
	ans, _ := json.Marshal(map[string]any{"vulnerable": true, "cwe": cwe, "owasp": owasp, "severity": sev, "cvss_vector": vec,
		"exploit": "send a crafted parameter", "fix": "validate and encode the input", "fix_code": "x = 1\n",
		"explanation": "untrusted input reaches a sink", "confidence": 0.7})
	return llmtest.Reply{Text: string(ans), InputTokens: 500, OutputTokens: 120}
}

// judgeModel is a judge: on calibration answers it gives score(reference), on everything else
// (the run's answers) 6, except exploits of SQL injection, which get a reply that cannot be read.
func judgeModel(t *testing.T, score func(ref float64) float64) llmtest.Handler {
	set, err := judge.LoadSet()
	if err != nil {
		t.Fatal(err)
	}
	return func(r llmtest.Request) llmtest.Reply {
		p := r.Prompt()
		for _, a := range set.Answers {
			body := a.Text
			if a.Part == grade.CodeQuality {
				body = a.Code
			}
			if r.Schema != nil && strings.Contains(p, strings.TrimSpace(body)) && strings.Contains(p, "Vulnerable code:\n```\n"+set.Records[a.Record].Code) {
				return llmtest.Reply{Text: fmt.Sprintf(`{"score": %g, "reason": "calibration"}`, score(a.Score))}
			}
		}
		if strings.Contains(p, "Part: EXPLOIT") && strings.Contains(p, "CWE-89") {
			return llmtest.Reply{Text: "It is a fine exploit, I would say."}
		}
		return llmtest.Reply{Text: `{"score": 6, "reason": "partly"}`}
	}
}

func TestAppSecRunThenScoreWithJudge(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("OPENAI_API_KEY", "test-key")
	if code, out, errOut := run(t, dir, "suite", "build", "appsec", "--seed", "42", "--out", "asb"); code != 0 {
		t.Fatalf("suite build: exit %d\n%s\n%s", code, out, errOut)
	}
	subj := llmtest.NewOpenAI(appsecModel)
	defer subj.Close()
	db := filepath.Join(dir, "v.db")
	code, out, errOut := run(t, dir, "run", "--suite", "asb/suite.jsonl", "--subject", "llm", "--model", "openai:fake-model",
		"--base-url", subj.BaseURL(), "--db", db, "--run-id", "asb1", "--concurrency", "8")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errOut)
	}
	// The run's own table has the automatic parts.
	if !regexp.MustCompile(`detection \(15 pts\) +98\.3%`).MatchString(out) {
		t.Errorf("run's score table lacks the appsec section:\n%s", out)
	}

	// Without a judge: the automatic parts, the judged ones "not graded". No scanner on PATH:
	// every fix "not checked".
	noPrograms(t)
	code, out, errOut = run(t, dir, "score", "--run", "asb1", "--db", db)
	if code != 0 {
		t.Fatalf("score: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{`records graded +472`, `mean score +\d+\.\d of 100`, `pass rate \(>= 70\) +0\.0%`,
		`points graded +50`, `detection \(15 pts\) +9\d\.\d%`, `cwe \(10 pts\)`, `owasp \(10 pts\)`, `severity \(10 pts\)`,
		`exploit \(10 pts\) +not graded`, `fix \(20 pts\) +not graded`, `code quality \(10 pts\) +not graded`, `explanation \(10 pts\) +not graded`,
		`false positive avoidance \(5 pts\) +\d`, `scanner: not checked +4\d\d`, `CVSS vectors compared`, `CVSS base metrics wrong`,
		`(?m)^difficulty +records +mean score`, `(?m)^  beginner|^beginner`, `(?m)^language `, `(?m)^archetype `} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("score output lacks %q:\n%s", want, out)
		}
	}

	// A bad judge (it scores everything 10 - reference) is refused, and nothing is scored.
	bad := llmtest.NewOpenAI(judgeModel(t, func(ref float64) float64 { return 10 - ref }))
	defer bad.Close()
	code, out, errOut = run(t, dir, "score", "--run", "asb1", "--db", db, "--judge-model", "openai:bad-judge", "--base-url", bad.BaseURL())
	if code != 1 || out != "" || !strings.Contains(errOut, "disagrees with the calibration set") || !strings.Contains(errOut, "--force-judge") {
		t.Errorf("bad judge: exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}

	// Forced, the bad judge is used, with a warning, and the figures say so.
	code, out, errOut = run(t, dir, "score", "--run", "asb1", "--db", db, "--judge-model", "openai:bad-judge", "--base-url", bad.BaseURL(),
		"--force-judge", "--fix-checks=false")
	if code != 0 || !strings.Contains(errOut, "used because of --force-judge") ||
		!regexp.MustCompile(`fix \(20 pts\) +\d+\.\d% \(judge openai:bad-judge: rho -[01]\.\d\d, .*below the threshold: forced\)`).MatchString(out) ||
		strings.Contains(out, "fixes checked") {
		t.Errorf("forced bad judge: exit %d\n%s\n%s", code, out, errOut)
	}

	// judge calibrate reports the agreement, and exits 1 for the bad judge.
	code, out, errOut = run(t, dir, "judge", "calibrate", "--judge-model", "openai:bad-judge", "--base-url", bad.BaseURL(), "--db", db)
	if code != 1 || !strings.Contains(out, "REFUSED: Spearman rho -") || !strings.Contains(out, "86 answers, 0 unreadable") ||
		!strings.Contains(out, "calls 86 (86 from the cache)") {
		t.Errorf("calibrate bad judge: exit %d\n%s\n%s", code, out, errOut)
	}

	// A good judge grades every part; its agreement is printed next to every judged figure.
	good := llmtest.NewOpenAI(judgeModel(t, func(ref float64) float64 { return ref }))
	defer good.Close()
	code, out, errOut = run(t, dir, "score", "--run", "asb1", "--db", db, "--judge-model", "openai:good-judge", "--base-url", good.BaseURL())
	if code != 0 {
		t.Fatalf("score with judge: exit %d\n%s", code, errOut)
	}
	// The judge gives 6 of 10 to every part of the 464 detected records, and 0 goes to the 8 whose
	// answer on the vulnerable case failed: 464 * 0.6 / 472 = 59.0%. The 14 detected SQL injection
	// records get an unreadable exploit grade: failed, left out: 450 * 0.6 / 458 = 59.0%.
	// Calls: 86 calibration answers and 4 parts of 464 records.
	for _, want := range []string{`points graded +100`, `exploit \(10 pts\) +59\.0% \(judge openai:good-judge: rho 1\.00, MAE 0\.00, bands 100%\)`,
		`fix \(20 pts\) +59\.0% \(judge openai:good-judge: rho 1\.00`, `code quality \(10 pts\) +59\.0% \(judge`, `explanation \(10 pts\) +59\.0% \(judge`,
		`judge failed \(exploit\) +14\n`, `judge +openai:good-judge`, `judge prompt version +1`, `judge calls +1942\n`} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("judged score output lacks %q:\n%s", want, out)
		}
	}
	calls := good.Requests()
	code, out, errOut = run(t, dir, "judge", "calibrate", "--judge-model", "openai:good-judge", "--base-url", good.BaseURL(), "--db", db)
	if code != 0 || !strings.Contains(out, "Spearman rho    1.000") || !strings.Contains(out, "passes the thresholds") ||
		!regexp.MustCompile(`code quality +n 19, MAE 0\.000, bands 100\.0%`).MatchString(out) {
		t.Errorf("calibrate good judge: exit %d\n%s\n%s", code, out, errOut)
	}

	// JSON has the contract's appsec section; a rescore is answered from the cache.
	code, out, errOut = run(t, dir, "score", "--run", "asb1", "--db", db, "--judge-model", "openai:good-judge", "--base-url", good.BaseURL(), "--format", "json")
	if code != 0 {
		t.Fatalf("score json: exit %d\n%s", code, errOut)
	}
	if good.Requests() != calls {
		t.Errorf("a rescore made %d judge calls, want 0 (the cache)", good.Requests()-calls)
	}
	var js struct {
		Scorer int `json:"scorer"`
		AppSec struct {
			MeanScore float64            `json:"mean_score"`
			PassRate  *float64           `json:"pass_rate"`
			Parts     map[string]float64 `json:"parts"`
			Judge     struct {
				Model     string  `json:"model"`
				Rho       float64 `json:"rho"`
				CacheHits int     `json:"cache_hits"`
			} `json:"judge"`
			ByLanguage map[string]struct {
				N float64 `json:"n"`
			} `json:"by_language"`
		} `json:"appsec"`
	}
	if err := json.Unmarshal([]byte(out), &js); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if js.Scorer != score.Version || js.AppSec.PassRate == nil || len(js.AppSec.Parts) != 9 || js.AppSec.Judge.Model != "openai:good-judge" ||
		js.AppSec.Judge.CacheHits == 0 || len(js.AppSec.ByLanguage) < 10 || js.AppSec.MeanScore <= 0 || js.AppSec.MeanScore >= 1 {
		t.Errorf("json appsec section: %+v\n%s", js, out)
	}
	os.WriteFile(filepath.Join(dir, "score.json"), []byte(out), 0o644)

	// The HTML report shows every part, the judged ones too, with the judge's calibration
	// figures, without judging again: every answer comes from the store's cache.
	code, out, errOut = run(t, dir, "report", "--run", "asb1", "--db", db, "--html", "rep", "--judge-model", "openai:good-judge", "--base-url", good.BaseURL())
	if code != 0 {
		t.Fatalf("report with judge: exit %d\n%s", code, errOut)
	}
	if good.Requests() != calls {
		t.Errorf("report made %d judge calls, want 0 (the cache)", good.Requests()-calls)
	}
	page, err := os.ReadFile(filepath.Join(dir, "rep", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`exploit \(10 pts\)</t[dh]><td[^>]*>59\.0% \(judge openai:good-judge: rho 1\.00, MAE 0\.00, bands 100%\)`,
		`fix \(20 pts\)`, `code quality \(10 pts\)`, `explanation \(10 pts\)`, `judge Spearman rho \(calibration\)`, `\d+\.\d of 100`} {
		if !regexp.MustCompile(want).Match(page) {
			t.Errorf("report lacks %q", want)
		}
	}
}
